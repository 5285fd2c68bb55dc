// See report_flags.h.
#include "orchestrator/cli/report_flags.h"

#include <algorithm>
#include <utility>

namespace benchgate::cli {

Expected<void> check_report_flags(const std::vector<std::string>& given,
                                  const report::OutputPaths& paths) {
  for (const auto& [flag, path] :
       {std::pair{"--json", &paths.json}, std::pair{"--junit", &paths.junit},
        std::pair{"--markdown", &paths.markdown}, std::pair{"--html", &paths.html}}) {
    if (path->empty() && std::find(given.begin(), given.end(), flag) != given.end()) {
      return Error{std::string(flag) + " '': an empty path names no file; name the file to write"};
    }
  }
  return report::check_output_paths(paths);
}

}  // namespace benchgate::cli
