// See named_file.h.
#include "orchestrator/scenario/named_file.h"

#include <filesystem>

#include "common/util/regular_file.h"
#include "common/util/shown_text.h"
#include "orchestrator/scenario/interpolation.h"
#include "orchestrator/scenario/scenario_loader.h"

namespace benchgate::scenario {

std::optional<std::string> read_named_file(TableReader& r, std::string_view key,
                                           const std::string& path, std::string& resolved) {
  resolved = path_beside_scenario(r.table_location().file, path);
  const std::string read_as =
      resolved != path ? " (read as '" + shown_text(resolved) + "')" : std::string();
  const std::string named = "key '" + std::string(key) + "': ";
  std::error_code ec;
  if (path.empty() || !std::filesystem::exists(resolved, ec)) {
    r.diagnostics().error(r.value_location(key),
                          named + "no such file '" + shown_text(path) + "'" + read_as);
    return std::nullopt;
  }
  auto text = read_regular_file(resolved, named + "'" + shown_text(path) + "'" + read_as,
                                kMaxScenarioFileBytes);
  if (!text) {
    r.diagnostics().error(r.value_location(key), text.message());
    return std::nullopt;
  }
  return std::move(*text);
}

}  // namespace benchgate::scenario
