// A rate or a limit in a message about a workload, written as docs/SCENARIOS.md and the schema
// write it (1000000, 0.000001, 250000.5): the shortest decimal that reads back as the same
// double, so that a value just past a limit does not print as the limit. A number whose decimal
// would be longer than 24 characters (1e-300, 1e+300) is written with an exponent.
//
// The reports' rate (orchestrator/report/rate_text.h) is another thing: a configured rate shown
// rounded (whole requests/s from 10/s), where a message about a limit must show the exact value.
#pragma once

#include <charconv>
#include <string>

namespace benchgate::workload_limits {

inline std::string decimal_text(double value) {
  char text[400];  // fixed notation of the largest double is 309 digits
  auto fixed = std::to_chars(text, text + sizeof text, value, std::chars_format::fixed);
  if (fixed.ec == std::errc() && fixed.ptr - text <= 24) return std::string(text, fixed.ptr);
  auto general = std::to_chars(text, text + sizeof text, value);
  return std::string(text, general.ptr);
}

}  // namespace benchgate::workload_limits
