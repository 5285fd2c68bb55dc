// LoadOptions for the scenario unit tests: no environment variable is set, and each
// ${port:NAME} gets the next number from `first_port` (a different port per name, as the real
// allocator gives), with no socket opened.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "orchestrator/scenario/scenario_loader.h"

namespace benchgate::scenario::test_support {

inline LoadOptions hermetic_options(uint16_t first_port = 1234) {
  LoadOptions options;
  options.getenv = [](const std::string&) -> std::optional<std::string> { return std::nullopt; };
  options.allocate_port = [next = first_port]() mutable -> Expected<uint16_t> { return next++; };
  return options;
}

}  // namespace benchgate::scenario::test_support
