// What a client of `serve` is shown names what the client knows (the file it submitted or the
// scenario's name, the job id, a log's name), never the service's own folders: the
// `--scenarios` folder, the folder of the jobs' logs, the store's folder, the router's and the
// worker's folders and the temporary folder are the operator's layout (README "Clients of
// orchestrator serve"), whether the orchestrator or a child (a stderr tail) names them.
#pragma once

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

namespace benchgate::serve {

// Where a path may begin in a message: at its start or after a space, a quote, '(' or '='
// ("see /srv/logs/a", "'/srv/logs/a'", "(/srv/logs/a)", "--log=/srv/logs/a"). Anywhere else a
// folder's name is part of another path ("/x/srv/logs/a") or word.
inline bool path_may_start_after(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '"' || c == '\'' || c == '`' ||
         c == '(' || c == '=';
}

// Where a path may end: a space, a quote, ')', ',', ';' or ':' ("cannot open /srv/logs: ...").
inline bool path_may_end_before(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '"' || c == '\'' || c == '`' ||
         c == ')' || c == ',' || c == ';' || c == ':';
}

// `text` with every path that starts with a folder of `folders` named relative to it:
// "/srv/scenarios/x.toml" becomes "x.toml", "/tmp/benchgate-serve-1a2b/job-3/router.stderr.log"
// "job-3/router.stderr.log", and an absolute folder named alone ("cannot open /srv/logs: ...")
// ".". A folder is taken out only where a path begins (path_may_start_after) and only whole
// ("/srv/logsx" stays); the longest folder that fits is taken. A folder of "/" or "." (and an
// empty one) is never taken out: it would take out every path, or every "./".
inline std::string without_folders(const std::string& text, std::vector<std::string> folders) {
  for (std::string& folder : folders) {
    while (folder.size() > 1 && folder.back() == '/') folder.pop_back();
  }
  std::erase_if(folders, [](const std::string& f) { return f.empty() || f == "/" || f == "."; });
  std::sort(folders.begin(), folders.end(),
            [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  std::string out;
  out.reserve(text.size());
  size_t at = 0;
  while (at < text.size()) {
    if (at == 0 || path_may_start_after(text[at - 1])) {
      const auto taken = std::find_if(folders.begin(), folders.end(), [&](const std::string& f) {
        if (text.compare(at, f.size(), f) != 0) return false;
        const size_t end = at + f.size();
        if (end < text.size() && text[end] == '/') return true;
        // A relative folder alone ("scen") reads as a word: only an absolute one is a path.
        return f.front() == '/' && (end == text.size() || path_may_end_before(text[end]));
      });
      if (taken != folders.end()) {
        const size_t end = at + taken->size();
        if (end < text.size() && text[end] == '/') {
          at = end + 1;
        } else {
          out += '.';
          at = end;
        }
        continue;
      }
    }
    out += text[at++];
  }
  return out;
}

// The spellings paths of folder `dir` appear in: as given ("scen"), lexically normal (how
// files beside a scenario are named, "./scen" read as "scen"), and absolute (how
// ${scenario_dir} expands, orchestrator/scenario/interpolation.cc). For without_folders.
inline std::vector<std::string> folder_spellings(const std::string& dir) {
  namespace fs = std::filesystem;
  if (dir.empty()) return {};
  std::vector<std::string> out{dir, fs::path(dir).lexically_normal().string()};
  std::error_code ec;
  const fs::path absolute = fs::absolute(dir, ec);
  if (!ec) out.push_back(absolute.lexically_normal().string());
  for (std::string& spelling : out) {
    while (spelling.size() > 1 && spelling.back() == '/') spelling.pop_back();
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// The folder a file of the service lies in, for folder_spellings: `file`'s parent, the working
// folder for a bare name when `bare_name_in_working_folder` (a store, "bench.db"), nothing for
// a bare program name (found through PATH: no folder of the service's).
inline std::string folder_of(const std::string& file, bool bare_name_in_working_folder) {
  namespace fs = std::filesystem;
  if (file.empty()) return {};
  const fs::path parent = fs::path(file).parent_path();
  if (!parent.empty()) return parent.string();
  if (!bare_name_in_working_folder) return {};
  std::error_code ec;
  const fs::path here = fs::current_path(ec);
  return ec ? std::string() : here.string();
}

// Every folder of a service that its clients are not shown, in each of its spellings: the
// `--scenarios` folder, the store's folder (`db_path`'s), the folders of `programs` (the router
// and worker binaries it starts) and the temporary folder it makes its working folders in (its
// log folder lies there; RunExecutor adds that one, which may lie elsewhere).
inline std::vector<std::string> service_folders(const std::string& scenarios_dir,
                                                const std::string& db_path,
                                                const std::vector<std::string>& programs) {
  std::vector<std::string> out = folder_spellings(scenarios_dir);
  auto add = [&out](const std::string& folder) {
    for (std::string& spelling : folder_spellings(folder)) out.push_back(std::move(spelling));
  };
  add(folder_of(db_path, true));
  for (const std::string& program : programs) add(folder_of(program, false));
  std::error_code ec;
  const std::filesystem::path temp = std::filesystem::temp_directory_path(ec);
  if (!ec) add(temp.string());
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace benchgate::serve
