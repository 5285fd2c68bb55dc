// What the scenario unit tests share: load options that read no environment and open no
// socket, a text loaded with them, and a load's diagnostics as text. The tests of this folder
// compile together in batches (tests/CMakeLists.txt), so a helper they all need lives here once
// instead of as a same-named copy in each file.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "orchestrator/scenario/scenario_loader.h"

namespace benchgate::scenario::test_support {

// The committed scenario files (tests/data/scenarios).
inline const std::string kScenarioData = BENCHGATE_SCENARIO_DATA;

// No environment variable is set, and each ${port:NAME} gets the next number from
// `first_port` (a different port per name, as the real allocator gives).
inline LoadOptions hermetic_options(uint16_t first_port = 1234) {
  LoadOptions options;
  options.getenv = [](const std::string&) -> std::optional<std::string> { return std::nullopt; };
  options.allocate_port = [next = first_port]() mutable -> Expected<uint16_t> { return next++; };
  return options;
}

inline LoadResult load_hermetic(std::string_view text, const std::string& path = "s.toml") {
  return load_scenario_text(text, path, hermetic_options());
}

// Each diagnostic as the loader formats it (file:line:column: ...).
inline std::vector<std::string> diagnostic_lines(const LoadResult& r) {
  std::vector<std::string> out;
  for (const Diagnostic& d : r.diagnostics) out.push_back(d.format());
  return out;
}

// The same, one per line: for a failed assertion's message and substring checks.
inline std::string diagnostics_text(const LoadResult& r) {
  std::string out;
  for (const Diagnostic& d : r.diagnostics) out += d.format() + "\n";
  return out;
}

}  // namespace benchgate::scenario::test_support
