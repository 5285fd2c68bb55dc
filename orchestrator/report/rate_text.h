// An open-loop workload's rate as the reports show it: whole requests per second, and a rate
// under 10 per second with the digits that say it (a rate of 0.001 is not "0").
#pragma once

#include <fmt/format.h>

#include <string>

namespace benchgate::report {

inline std::string rate_text(double per_second) {
  return per_second >= 10 ? fmt::format("{:.0f}", per_second) : fmt::format("{:.3g}", per_second);
}

}  // namespace benchgate::report
