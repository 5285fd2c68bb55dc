#include "worker/adapters/tool.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <vector>

#include "worker/adapters/tool_runner.h"

namespace benchgate::worker::adapters {
namespace {

// The version word of the tool's first line: "h2load nghttp2/1.52.0" -> "nghttp2/1.52.0",
// "wrk debian/4.1.0-3+b2 [epoll] Copyright ..." -> "debian/4.1.0-3+b2".
std::string version_word(std::string_view text, std::string_view name) {
  const size_t end = text.find('\n');
  std::string_view line = text.substr(0, end);
  if (line.substr(0, name.size()) != name || line.size() <= name.size() + 1) return "";
  line.remove_prefix(name.size() + 1);
  return std::string(line.substr(0, line.find(' ')));
}

}  // namespace

Expected<ToolKind> tool_kind(std::string_view name) {
  if (name == "h2load") return ToolKind::kH2load;
  if (name == "wrk") return ToolKind::kWrk;
  return Error{"unknown adapter '" + std::string(name) + "' (h2load, wrk)"};
}

std::string find_on_path(std::string_view name, std::string_view path_env) {
  while (true) {
    const size_t colon = path_env.find(':');
    std::string candidate(path_env.substr(0, colon));
    // An empty entry would be the current folder for a shell; it is skipped, as the
    // orchestrator's lookup (and serve's --allow-command check) skips it, so that both find
    // the same file and nothing runs from wherever the worker was started.
    if (!candidate.empty()) {
      candidate.append("/").append(name);
      struct stat info {};
      if (::stat(candidate.c_str(), &info) == 0 && S_ISREG(info.st_mode) &&
          ::access(candidate.c_str(), X_OK) == 0) {
        return candidate;
      }
    }
    if (colon == std::string_view::npos) return "";
    path_env.remove_prefix(colon + 1);
  }
}

namespace {

const char* name_of(ToolKind kind) { return kind == ToolKind::kH2load ? "h2load" : "wrk"; }

// Asks the tool at tool.path for its version.
Expected<Tool> with_version(Tool tool) {
  const ToolKind kind = tool.kind;
  // h2load --version exits 0; wrk -v prints its version line, then its usage, and exits 1.
  const std::vector<std::string> argv{tool.path, kind == ToolKind::kH2load ? "--version" : "-v"};
  auto run = run_tool(argv, std::chrono::steady_clock::now() + std::chrono::seconds(10), {});
  if (!run) return Error{run.message()};
  tool.version = version_word(run->out, tool.name);
  if (tool.version.empty()) {
    return Error{"cannot read the version of " + tool.path + " (" + argv[1] + " printed '" +
                 last_line(run->out.substr(0, run->out.find('\n'))) + "')"};
  }
  return tool;
}

}  // namespace

Expected<Tool> locate_tool(ToolKind kind, std::string_view path_env) {
  Tool tool{kind, name_of(kind), find_on_path(name_of(kind), path_env), ""};
  if (tool.path.empty()) return Error{tool.name + " is not installed (not found on PATH)"};
  return with_version(std::move(tool));
}

Expected<Tool> tool_at(ToolKind kind, const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    return Error{std::string(name_of(kind)) + " '" + path + "': " + std::strerror(errno)};
  }
  if (!S_ISREG(info.st_mode) || ::access(path.c_str(), X_OK) != 0) {
    return Error{std::string(name_of(kind)) + " '" + path + "': not an executable regular file"};
  }
  // The service resolves only files of the tool's own name (resolve_adapter_programs); any
  // other file is not that tool, whoever named it.
  if (std::filesystem::path(path).filename() != name_of(kind)) {
    return Error{std::string(name_of(kind)) + " '" + path + "': not a file named " +
                 std::string(name_of(kind))};
  }
  return with_version(Tool{kind, name_of(kind), path, ""});
}

}  // namespace benchgate::worker::adapters
