// --version, the same for every benchgate binary: the project's version, one line.
#pragma once

#include <CLI/CLI.hpp>

namespace benchgate::command_line {

// The version every binary reports ("0.1.0"): the top CMakeLists.txt's project version.
const char* version();

// Adds --version to `app`: prints version() and exits 0 (CLI::CallForVersion, which the caller
// hands to app.exit() as it does --help).
void add_version_flag(CLI::App& app);

}  // namespace benchgate::command_line
