// See regular_file.h.
#include "common/util/regular_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

namespace benchgate {
namespace {

// "a FIFO": what a file that is not a regular file is, for the refusal.
const char* kind_of(mode_t mode) {
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "a special file";
}

// "WHERE: reason" for a failed system call; the reason alone without a `where`.
Error system_error(const std::string& where, int error) {
  return Error{where.empty() ? std::string(std::strerror(error))
                             : where + ": " + std::strerror(error)};
}

// "WHERE is ..." for what the file is; "is ..." without a `where`.
Error refusal(const std::string& where, const std::string& predicate) {
  return Error{where.empty() ? predicate : where + " " + predicate, ErrorKind::kInvalidInput};
}

}  // namespace

FileDescriptor::~FileDescriptor() {
  if (fd_ >= 0) ::close(fd_);
}

Expected<OpenedFile> open_regular_file(const std::string& path, const std::string& where) {
  // O_NONBLOCK: opening a FIFO would otherwise wait for a writer forever (a device could block
  // too); a regular file ignores it. O_NOCTTY: a terminal named by mistake does not become the
  // process's controlling terminal.
  FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY));
  if (fd.get() < 0) return system_error(where, errno);
  struct stat status {};
  if (::fstat(fd.get(), &status) != 0) return system_error(where, errno);
  if (!S_ISREG(status.st_mode)) {
    return refusal(where, std::string("is ") + kind_of(status.st_mode) + ", not a regular file");
  }
  return OpenedFile{std::move(fd), status};
}

Expected<std::string> read_regular_file(const std::string& path, const std::string& where,
                                        uint64_t max_bytes) {
  auto file = open_regular_file(path, where);
  if (!file) return file.error();
  auto too_large = [&] {
    return refusal(where,
                   "is larger than " + std::to_string(max_bytes) + " bytes, the most it may hold");
  };
  const auto size = static_cast<uint64_t>(file->status.st_size);
  if (size > max_bytes) return too_large();
  std::string text;
  text.reserve(static_cast<size_t>(size));
  // One byte past the limit is asked for, so that a file that grew past it is refused, not cut.
  char buffer[65536];
  for (;;) {
    const uint64_t room = max_bytes + 1 - text.size();
    const size_t want = static_cast<size_t>(std::min<uint64_t>(sizeof buffer, room));
    const ssize_t got = ::read(file->fd.get(), buffer, want);
    if (got < 0) {
      if (errno == EINTR) continue;
      return system_error(where, errno);
    }
    if (got == 0) break;
    text.append(buffer, static_cast<size_t>(got));
    if (text.size() > max_bytes) return too_large();
  }
  return text;
}

}  // namespace benchgate
