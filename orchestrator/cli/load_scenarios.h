// Loads every scenario file named on the command line and validates all of them before
// anything starts; prints every diagnostic.
#pragma once

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "orchestrator/scenario/scenario.h"
#include "orchestrator/scenario/scenario_loader.h"

namespace benchgate::cli {

// Every file's scenario, or why not: `exit_code` is kExitInvalidInput (2) when any file is
// invalid (every file's diagnostics printed to `err`), kExitRunError (3) when Ctrl-C ended the
// wait for a file's pipe; the files after that one are not read (each pipe would wait its own
// idle timeout again), and what the files before it said has been printed.
struct LoadedScenarios {
  std::optional<std::vector<scenario::Scenario>> scenarios;
  int exit_code = 0;
};

LoadedScenarios load_all(const std::vector<std::string>& files, std::FILE* err);

// load_all with the loader's options (tests shorten a pipe's idle timeout). Unless the options
// carry their own stop_requested, a pipe's wait asks the orchestrator's Ctrl-C flag
// (app::interrupted), so that Ctrl-C is answered however early in the wait it lands.
LoadedScenarios load_all(const std::vector<std::string>& files, std::FILE* err,
                         scenario::LoadOptions options);

}  // namespace benchgate::cli
