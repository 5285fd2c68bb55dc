// See open_files_limit.h.
#include "orchestrator/app/open_files_limit.h"

#include <sys/resource.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace benchgate::app {

Expected<OpenFilesLimit> raise_open_files_limit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) {
    return Error{std::string("cannot read the open files limit: ") + std::strerror(errno)};
  }
  OpenFilesLimit result{static_cast<uint64_t>(limit.rlim_cur),
                        static_cast<uint64_t>(limit.rlim_cur)};
  if (limit.rlim_cur == limit.rlim_max) return result;
  limit.rlim_cur = limit.rlim_max;
  if (::setrlimit(RLIMIT_NOFILE, &limit) != 0) {
    return Error{"cannot raise the open files limit from " + std::to_string(result.before) +
                 " to " + std::to_string(static_cast<uint64_t>(limit.rlim_max)) + ": " +
                 std::strerror(errno)};
  }
  result.after = static_cast<uint64_t>(limit.rlim_cur);
  return result;
}

}  // namespace benchgate::app
