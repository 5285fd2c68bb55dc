// Loads every scenario file named on the command line and validates all of them before
// anything starts; prints every diagnostic.
#pragma once

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "orchestrator/scenario/scenario.h"

namespace benchgate::cli {

// nullopt when any file is invalid (the diagnostics have been printed to `err`).
std::optional<std::vector<scenario::Scenario>> load_all(const std::vector<std::string>& files,
                                                        std::FILE* err);

}  // namespace benchgate::cli
