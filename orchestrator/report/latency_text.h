// A latency as every report writes it: the terminal's tables and lines, the Markdown summary
// and the HTML report call these, so one latency reads the same in all of them ("85us",
// "7.05ms", "1ms": at most three significant digits in the unit that fits, format_duration_ns).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "common/units/units.h"

namespace benchgate::report {

// A latency, or a span shown beside one (a worker's RTT, a start spread); "-" when not measured.
inline std::string latency_text(std::optional<int64_t> ns) {
  return ns ? format_duration_ns(static_cast<double>(*ns)) : "-";
}

// The same, signed ("+120us", "-30us"): a worker's clock offset and start skew.
inline std::string signed_latency_text(std::optional<int64_t> ns) {
  if (!ns) return "-";
  return (*ns >= 0 ? "+" : "") + format_duration_ns(static_cast<double>(*ns));
}

}  // namespace benchgate::report
