// A workload's summary row, under its repetitions' rows: its figures have two definitions
// (throughput the median of the repetitions, latency from their histograms merged, as gates
// judge them), so the row is not labelled "median", which would read as the median of the
// repetitions' percentiles. The terminal table, the HTML report and the Markdown summary take
// the label and the sentence that defines each figure from here.
#pragma once

#include <cstddef>
#include <string>

namespace benchgate::report {

inline constexpr const char* kSummaryRowLabel = "all reps";

// "ops/s, MB/s: median of 3 repetitions (ops/s 9.5k-10.2k); latency: their histograms merged;
// errors: summed"; `ops_range` is the ops/s min-max as the report writes it. A workload whose
// latency a worker adapter's tool printed (`latency_tool`, "wrk 4.2.0"; no histogram) has the
// median of the repetitions' figures and the largest max (results::WorkloadResult::latency_at).
inline std::string summary_row_definition(size_t repetitions, const std::string& ops_range,
                                          const std::string& latency_tool = "") {
  const std::string latency =
      latency_tool.empty()
          ? "their histograms merged"
          : "the median of their figures as " + latency_tool + " printed them (max: the largest)";
  return "ops/s, MB/s: median of " + std::to_string(repetitions) +
         (repetitions == 1 ? " repetition" : " repetitions") + " (ops/s " + ops_range +
         "); latency: " + latency + "; errors: summed";
}

}  // namespace benchgate::report
