#include "orchestrator/cli/load_scenarios.h"

#include "orchestrator/scenario/scenario_loader.h"

namespace benchgate::cli {

std::optional<std::vector<scenario::Scenario>> load_all(const std::vector<std::string>& files,
                                                        std::FILE* err) {
  std::vector<scenario::Scenario> scenarios;
  bool all_ok = true;
  for (const auto& file : files) {
    auto loaded = scenario::load_scenario_file(file);
    for (const auto& diagnostic : loaded.diagnostics) {
      std::fprintf(err, "%s\n", diagnostic.format().c_str());
    }
    if (!loaded.ok()) {
      all_ok = false;
      continue;
    }
    scenarios.push_back(std::move(*loaded.scenario));
  }
  if (!all_ok) return std::nullopt;
  return scenarios;
}

}  // namespace benchgate::cli
