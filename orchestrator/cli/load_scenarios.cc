#include "orchestrator/cli/load_scenarios.h"

#include "orchestrator/app/interrupt.h"
#include "orchestrator/cli/exit_codes.h"
#include "orchestrator/scenario/scenario_loader.h"

namespace benchgate::cli {

LoadedScenarios load_all(const std::vector<std::string>& files, std::FILE* err,
                         scenario::LoadOptions options) {
  // Ctrl-C's flag, unless the caller (a test) gave its own.
  if (!options.stop_requested) options.stop_requested = app::interrupted;
  std::vector<scenario::Scenario> scenarios;
  bool all_ok = true;
  for (const auto& file : files) {
    auto loaded = scenario::load_scenario_file(file, options);
    for (const auto& diagnostic : loaded.diagnostics) {
      std::fprintf(err, "%s\n", diagnostic.format().c_str());
    }
    // Ctrl-C is an interrupt, not an invalid file: it stops here, as it stops a run.
    if (loaded.interrupted) return LoadedScenarios{std::nullopt, kExitRunError};
    if (!loaded.ok()) {
      all_ok = false;
      continue;
    }
    scenarios.push_back(std::move(*loaded.scenario));
  }
  if (!all_ok) return LoadedScenarios{std::nullopt, kExitInvalidInput};
  return LoadedScenarios{std::move(scenarios), kExitOk};
}

LoadedScenarios load_all(const std::vector<std::string>& files, std::FILE* err) {
  return load_all(files, err, scenario::LoadOptions{});
}

}  // namespace benchgate::cli
