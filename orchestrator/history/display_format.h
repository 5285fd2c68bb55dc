// How stored values read on a terminal: local times, durations, short commits, labels,
// per-repetition figures. Pure functions, so listings can be tested without a database.
//
// A stored text (a commit, a branch, a label, a testbed's field) is shown through shown_text
// (common/util/shown_text.h) by short_commit, format_labels and or_dash, so that `runs list`,
// `runs show` and the other listings escape a line break or an escape sequence rather than
// print it: `run` and the service refuse them now, but runs stored before may hold them.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace benchgate::history {

// Unix nanoseconds as local time "2023-11-14 22:13:20" (the TZ environment applies).
std::string format_local_time(int64_t unix_ns);
// A wall-clock span: "850ms", "12.5s", "1m05s", "2h03m".
std::string format_span(int64_t ns);
// How long a run took, as `runs list`, `runs show` and the HTML report say it: nothing while
// it runs, nor for an `abandoned` run, whose orchestrator was killed at a moment nobody recorded
// (its finished_at is when a later orchestrator marked it; README, "Run status").
std::optional<std::string> run_took(const std::string& status, int64_t started_at_ns,
                                    std::optional<int64_t> finished_at_ns);
// The first 10 characters of a commit id, escaped, keeping a "-dirty" mark (store/git_revision.h):
// "0123456789-dirty"; "-" when there is none.
std::string short_commit(const std::string& commit);
// "k1=v1,k2=v2" in key order, each key and value escaped; "-" when empty.
std::string format_labels(const std::map<std::string, std::string>& labels);
// Nanoseconds with a unit ("1.00ms"), "-" when not measured.
std::string format_latency_ns(std::optional<int64_t> ns);
// A relative change as a signed percentage with two decimals: 0.5 -> "+50.00%".
std::string format_percent(double change);
// A metric's value in its unit (gates/metrics.h: "4.20ms", "12.3k ops/s"); plain ("{:g}") for a
// metric the table does not know.
std::string format_metric(const std::string& metric, double value);
// A stored text, escaped, or "-" for an empty string.
std::string or_dash(const std::string& s);
// Who started a run and whose series it is a point of, as `runs show` and the web run page
// say it (runs.origin, store::kRunOrigins): "client (submitted to orchestrator serve; a point
// of the clients' series only)".
std::string origin_text(const std::string& origin);

}  // namespace benchgate::history
