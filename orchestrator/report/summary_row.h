// A workload's summary row, under its repetitions' rows: its figures have two definitions
// (throughput the median of the repetitions, latency from their histograms merged, as gates
// judge them), so the row is not labelled "median", which would read as the median of the
// repetitions' percentiles. The terminal table, the HTML report and the Markdown summary take
// the label and the sentence that defines each figure from here.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>

#include "orchestrator/report/rate_text.h"
#include "orchestrator/results/results.h"

namespace benchgate::report {

inline constexpr const char* kSummaryRowLabel = "all reps";

// Whether the summary row stands for one repetition: it then repeats that repetition's figures,
// and every report says so rather than give a median of one or a range from a figure to itself.
inline bool summary_row_is_single(size_t repetitions) { return repetitions == 1; }

// The ops/s min-max as the reports write it, "9500-10200".
inline std::string summary_row_ops_range(const results::WorkloadResult& w) {
  const results::Spread ops = w.ops_per_second();
  return rate_text(ops.min) + "-" + rate_text(ops.max);
}

// The summary row's ops/s cell of the HTML report and the Markdown summary: the median with the
// min-max, "10000 (9500-10200)", and one repetition's figure alone.
inline std::string summary_row_ops(const results::WorkloadResult& w) {
  const std::string median = rate_text(w.ops_per_second().median);
  if (summary_row_is_single(w.repetitions.size())) return median;
  return median + " (" + summary_row_ops_range(w) + ")";
}

// "ops/s, MB/s: median of 3 repetitions (ops/s 9.5k-10.2k); latency: their histograms merged;
// errors: summed"; `ops_range` is the ops/s min-max as the report writes it. A workload whose
// latency a worker adapter's tool printed (`latency_tool`, "wrk 4.2.0"; no histogram) has the
// median of the repetitions' figures and the largest max (results::WorkloadResult::latency_at).
// `no_latency` says why the row has no latency ("no operation succeeded"), "" when it has one:
// every latency is then "-", and no merge or median made it. One repetition's row repeats that
// repetition's figures, which is said as such: a median of one, a range from a figure to itself
// and one histogram merged read as if there were more.
inline std::string summary_row_definition(size_t repetitions, const std::string& ops_range,
                                          const std::string& latency_tool = "",
                                          const std::string& no_latency = "") {
  const std::string none = "latency: none (" + no_latency + ")";
  if (summary_row_is_single(repetitions)) {
    return "a single repetition: the row repeats its figures" +
           (no_latency.empty() ? std::string() : "; " + none);
  }
  const std::string latency = !no_latency.empty() ? none
                              : latency_tool.empty()
                                  ? "latency: their histograms merged"
                                  : "latency: the median of their figures as " + latency_tool +
                                        " printed them (max: the largest)";
  return "ops/s, MB/s: median of " + std::to_string(repetitions) + " repetitions (ops/s " +
         ops_range + "); " + latency + "; errors: summed";
}

// Why a workload's summary row has no latency, for summary_row_definition: "" when it has one
// (results::WorkloadResult::latency_at), "no operation succeeded" when no repetition completed a
// success (latency is of successes only), else "not measured".
inline std::string summary_row_no_latency(const results::WorkloadResult& w) {
  if (w.latency_at(50) || w.latency_at(100)) return "";
  const bool none_succeeded =
      std::none_of(w.repetitions.begin(), w.repetitions.end(),
                   [](const results::Repetition& rep) { return rep.has_latency_to_measure(); });
  return none_succeeded ? "no operation succeeded" : "not measured";
}

}  // namespace benchgate::report
