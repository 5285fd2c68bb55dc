// The external load tools the worker can wrap (`worker --adapter h2load|wrk`): which one, where
// it is installed and which version it says it is.
#pragma once

#include <string>
#include <string_view>

#include "common/util/expected.h"

namespace benchgate::worker::adapters {

enum class ToolKind { kH2load, kWrk };

struct Tool {
  ToolKind kind = ToolKind::kH2load;
  std::string name;     // "h2load" / "wrk"
  std::string path;     // the executable found on PATH
  std::string version;  // as the tool printed it, e.g. "nghttp2/1.52.0"

  // "h2load nghttp2/1.52.0": what ToolLatency.tool and the logs name.
  std::string label() const { return version.empty() ? name : name + " " + version; }
};

// "h2load" or "wrk"; anything else is an error naming the accepted names.
Expected<ToolKind> tool_kind(std::string_view name);

// Finds the tool on `path_env` (a PATH value) and asks it for its version. An error says
// "<name> is not installed (not found on PATH)" or why the version could not be read.
Expected<Tool> locate_tool(ToolKind kind, std::string_view path_env);

// The tool at `path` (`worker --adapter-program`: the file the orchestrator chose, never looked
// up), checked an executable regular file, and asked for its version. An error names the path
// and what is wrong with it.
Expected<Tool> tool_at(ToolKind kind, const std::string& path);

// The directory entry of `name` on `path_env` that is an executable regular file; "" if none.
// Empty entries are skipped (orchestrator/processes/child_process.h, find_executable, alike).
std::string find_on_path(std::string_view name, std::string_view path_env);

}  // namespace benchgate::worker::adapters
