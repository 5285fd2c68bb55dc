// Reads the counters out of a Prometheus text exposition (format 0.0.4, what a /metrics
// endpoint serves by default): what a command's or external system's [router] metrics gives
// each window (docs/SCENARIOS.md, docs/MEASUREMENT.md "The system under test's counters").
// Plain functions, no Prometheus library: rule 5 of docs/CONTRIBUTING.md.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>

#include "common/util/expected.h"

namespace benchgate::sut {

// The samples a window delta means something for. Counted: the samples of a family a
// `# TYPE` line declares `counter` (its name, or its name + "_total"), and the `_bucket` and
// `_count` samples of a `histogram` and the `_count` of a `summary`. Left out: gauges, untyped
// samples (without a TYPE line nothing tells a count from a level), summary quantiles, and
// `_sum` samples (a sum of observed values, seconds or bytes, rarely whole). Keys are
// "name{label=value,...}" with the labels sorted by name, as the bundled router's counters are
// keyed (router_control_client.h): a value is unquoted, with a backslash, comma or closing
// brace in it escaped as \\, \, or \}, a newline as \n and another control character as
// \xHH, so that two series never share a key and a key is one printable line. Timestamps are
// read and ignored.
struct ExposedCounters {
  std::map<std::string, uint64_t> counters;
  // Counted samples whose value is no count: not a whole number of 0 or more (1.5, NaN, +Inf,
  // -1), or above 2^53 (a double holds no exact integer there).
  std::set<std::string> uncounted;
};

// The counters of `text`, or an error naming the first bad line and what is wrong with it:
// "line 12: the sample value is not a number". Bad: a malformed name, label or value, an
// unknown escape in a label value, a second sample of one series, a second TYPE line for a
// family or one after its samples. The error quotes nothing of `text`: it may reach a client
// of `orchestrator serve`, who must not read a reply of whatever a URL points at through it,
// nor get its control characters.
Expected<ExposedCounters> parse_prometheus_counters(std::string_view text);

}  // namespace benchgate::sut
