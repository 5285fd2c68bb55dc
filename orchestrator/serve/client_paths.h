// What a client of `serve` is shown names what the client knows (the file it submitted or the
// scenario's name, the job id, a log's name), never the service's own folders: the
// `--scenarios` folder and the folder of the jobs' logs are the operator's layout (README
// "Clients of orchestrator serve").
#pragma once

#include <string>
#include <vector>

namespace benchgate::serve {

// `text` with every "FOLDER/" of `folders` taken out: "/srv/scenarios/x.toml" becomes
// "x.toml", "/tmp/benchgate-serve-1a2b/job-3/router.stderr.log" "job-3/router.stderr.log".
inline std::string without_folders(std::string text, const std::vector<std::string>& folders) {
  for (const std::string& folder : folders) {
    const std::string prefix = folder.ends_with('/') ? folder : folder + "/";
    if (prefix == "/") continue;  // a folder of "/" would take every '/' out
    for (size_t at = text.find(prefix); at != std::string::npos; at = text.find(prefix, at)) {
      text.erase(at, prefix.size());
    }
  }
  return text;
}

}  // namespace benchgate::serve
