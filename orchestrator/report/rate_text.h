// A rate as the reports show it (format_rate): whole per second from 10 on, and a rate under 10
// per second with the digits that say it (a rate of 0.001 is not "0"). The tables' ops/s, a
// gate's figure and the live progress line all write a rate with it.
#pragma once

#include <string>

#include "common/units/units.h"

namespace benchgate::report {

inline std::string rate_text(double per_second) { return format_rate(per_second); }

}  // namespace benchgate::report
