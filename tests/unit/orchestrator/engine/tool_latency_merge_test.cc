// Merging windows from workers that wrap a tool (the h2load and wrk adapters): the tool's
// printed latency figures and the fields it could not measure, never reported as zero.
#include <gtest/gtest.h>

#include "orchestrator/engine/window_merge.h"

namespace benchgate::engine {
namespace {

v1::WindowResult tool_part(uint64_t successes, int64_t mean_ns, int64_t min_ns, int64_t max_ns) {
  v1::WindowResult r;
  r.set_operations(successes);
  r.set_successes(successes);
  r.set_bytes_received(successes * 100);
  // As the adapters report it: the tool's counts over its own duration (the window).
  r.mutable_in_window()->set_successes(successes);
  r.mutable_in_window()->set_bytes_received(successes * 100);
  r.add_not_measured("payload_bytes");
  auto* t = r.mutable_tool_latency();
  t->set_tool("wrk 4.1.0");
  t->set_mean_ns(mean_ns);
  t->set_min_ns(min_ns);
  t->set_max_ns(max_ns);
  t->set_stdev_ns(10);
  (*t->mutable_percentiles_ns())["50"] = mean_ns;
  (*t->mutable_percentiles_ns())["99"] = max_ns - 1;
  r.add_not_measured("bytes_sent");
  r.add_not_measured("data_window");
  r.add_not_measured("cpu");
  return r;
}

// A workload of one repetition (built, not aggregate-initialized: `WorkloadResult{...}` would
// copy-list-initialize its histogram from {} through an explicit constructor).
results::WorkloadResult workload_of(const results::Repetition& rep) {
  results::WorkloadResult w;
  w.repetitions = {rep};
  return w;
}

TEST(ToolLatencyMerge, OneWorkersPrintedFiguresAreKeptAndAreNotCheckedAgainstSuccesses) {
  auto rep = merge_window({tool_part(1000, 2000, 500, 9000)}, 0, 0, 2'000'000'000);
  ASSERT_TRUE(rep.ok()) << rep.message();
  ASSERT_TRUE(rep->tool_latency);
  EXPECT_EQ(rep->tool_latency->tool, "wrk 4.1.0");
  EXPECT_EQ(rep->latency.total_count(), 0);
  EXPECT_EQ(rep->latency_at(50), 2000);
  EXPECT_EQ(rep->latency_at(99), 8999);
  EXPECT_EQ(rep->latency_at(100), 9000);
  EXPECT_EQ(rep->latency_mean(), 2000.0);
  EXPECT_EQ(rep->tool_latency->stdev_ns, 10);
}

TEST(ToolLatencyMerge, APercentileTheToolDidNotPrintIsNotMeasured) {
  auto rep = merge_window({tool_part(1000, 2000, 500, 9000)}, 0, 0, 2'000'000'000);
  ASSERT_TRUE(rep.ok()) << rep.message();
  EXPECT_FALSE(rep->latency_at(90));
  EXPECT_FALSE(rep->latency_at(99.9));
  EXPECT_FALSE(results::metric_values(workload_of(*rep), "latency.p999"));
}

TEST(ToolLatencyMerge, SeveralWorkersDropPercentilesAndCombineMeanMinMax) {
  auto rep = merge_window({tool_part(300, 1000, 400, 5000), tool_part(100, 5000, 700, 9000)}, 0, 0,
                          2'000'000'000);
  ASSERT_TRUE(rep.ok()) << rep.message();
  ASSERT_TRUE(rep->tool_latency);
  EXPECT_TRUE(rep->tool_latency->percentiles_ns.empty());
  EXPECT_FALSE(rep->latency_at(50));
  EXPECT_FALSE(rep->tool_latency->stdev_ns);
  // (300 * 1000 + 100 * 5000) / 400
  EXPECT_EQ(rep->tool_latency->mean_ns, 2000);
  EXPECT_EQ(rep->tool_latency->min_ns, 400);
  EXPECT_EQ(rep->latency_at(100), 9000);
}

// A tool's p99 below its p50 contradicts itself, as more successes than operations do: the
// window is refused, naming the worker, the window and the figures, never turned into a figure
// (docs/WORKER_PROTOCOL.md). Each worker's result is checked, although the percentiles of
// several workers are dropped when merged.
TEST(ToolLatencyMerge, PercentilesOutOfOrderAreAMalformedResult) {
  auto a = tool_part(300, 1000, 400, 5000);
  auto b = tool_part(100, 2000, 700, 9000);
  a.set_window(3);
  b.set_window(3);
  (*b.mutable_tool_latency()->mutable_percentiles_ns())["99"] = 1500;  // below its p50, 2000
  auto rep = merge_window({a, b}, 2, 0, 2'000'000'000, {0, 1});
  ASSERT_FALSE(rep.ok());
  EXPECT_EQ(rep.message(),
            "worker 1 sent a malformed result: in window 3, tool_latency of 'wrk 4.1.0' is out of "
            "order: p99 1500 ns < p50 2000 ns");
  // A maximum below a percentile, from the only worker.
  a.mutable_tool_latency()->set_max_ns(900);
  rep = merge_window({a}, 2, 0, 2'000'000'000);
  ASSERT_FALSE(rep.ok());
  EXPECT_EQ(rep.message(),
            "worker 0 sent a malformed result: in window 3, tool_latency of 'wrk 4.1.0' is out of "
            "order: max 900 ns < p99 4999 ns");
}

TEST(ToolLatencyMerge, AMeanOneWorkerLacksIsNotMeasured) {
  auto a = tool_part(300, 1000, 400, 5000);
  auto b = tool_part(100, 5000, 700, 9000);
  b.mutable_tool_latency()->clear_mean_ns();
  auto rep = merge_window({a, b}, 0, 0, 2'000'000'000);
  ASSERT_TRUE(rep.ok()) << rep.message();
  EXPECT_FALSE(rep->latency_mean());
}

TEST(ToolLatencyMerge, NotMeasuredFieldsAreListedAndThroughputUsesTheConfiguredWindow) {
  auto part = tool_part(1000, 2000, 500, 9000);
  part.set_cpu_user_ns(1'000'000'000);
  part.set_wall_ns(1'000'000'000);
  part.set_threads(1);
  auto rep = merge_window({part}, 0, 0, 2'000'000'000);
  ASSERT_TRUE(rep.ok()) << rep.message();
  EXPECT_FALSE(rep->measured("bytes_sent"));
  EXPECT_FALSE(rep->measured("cpu"));
  EXPECT_TRUE(rep->measured("bytes_received"));
  EXPECT_EQ(rep->data_window_ns, 0);
  EXPECT_DOUBLE_EQ(rep->ops_per_second(), 500.0);  // 1000 over the 2 s window
  // CPU not measured: neither a utilization nor a saturation flag.
  EXPECT_TRUE(rep->flags.empty());
  EXPECT_FALSE(results::metric_values(workload_of(*rep), "worker.cpu_utilization"));
  // A data window declared not measured is left 0: instants beside it contradict it.
  part.set_first_send_unix_ns(1);
  part.set_last_receive_unix_ns(500'000'001);
  rep = merge_window({part}, 0, 0, 2'000'000'000);
  ASSERT_FALSE(rep.ok());
  EXPECT_EQ(rep.message(),
            "worker 0 sent a malformed result: in window 0, data_window is declared not "
            "measured, but first_send_unix_ns is 1 and last_receive_unix_ns 500000001 (left 0 "
            "when not measured)");
}

TEST(ToolLatencyMerge, ToolFiguresAndHistogramsInOneWindowAreAnError) {
  v1::WindowResult with_histogram;
  with_histogram.set_operations(1);
  with_histogram.set_successes(1);
  HdrHistogram h;
  h.record(1000);
  auto blob = h.encode_compressed();
  with_histogram.mutable_latency()->set_hdr_v2_compressed(std::string(blob.begin(), blob.end()));
  auto rep = merge_window({tool_part(10, 1000, 1, 2000), with_histogram}, 0, 0, 1'000'000'000);
  ASSERT_FALSE(rep.ok());
  EXPECT_NE(rep.message().find("different kinds of latency"), std::string::npos);
}

TEST(ToolLatencySummary, RepetitionsGiveTheMedianOfPercentilesMaxOfMaxAndWeightedMean) {
  results::WorkloadResult w;
  for (int64_t mean : {1000, 3000, 2000}) {
    auto rep = merge_window({tool_part(100, mean, 10, mean * 4)}, 0, 0, 1'000'000'000);
    ASSERT_TRUE(rep.ok()) << rep.message();
    w.repetitions.push_back(*rep);
  }
  EXPECT_EQ(w.latency_tool(), "wrk 4.1.0");
  EXPECT_EQ(w.latency_at(50), 2000);
  EXPECT_EQ(w.latency_at(100), 12000);
  EXPECT_EQ(w.latency_mean(), 2000.0);
  EXPECT_FALSE(w.latency_at(95));
  EXPECT_FALSE(w.measured("bytes_sent"));
  EXPECT_TRUE(w.measured("bytes_received"));
}

TEST(ToolLatencySummary, AGateOnAFigureTheToolDidNotPrintIsToldWhy) {
  results::WorkloadResult w;
  auto rep = merge_window({tool_part(100, 1000, 10, 4000)}, 0, 0, 1'000'000'000);
  ASSERT_TRUE(rep.ok()) << rep.message();
  w.repetitions.push_back(*rep);
  EXPECT_EQ(results::not_measured_reason(w, "latency.p95"),
            "latency.p95 was not measured: the workers ran wrk 4.1.0, which did not print it");
  EXPECT_EQ(results::not_measured_reason(w, "worker.cpu_utilization"),
            "worker.cpu_utilization was not measured: the workers could not measure cpu");
  EXPECT_EQ(results::not_measured_reason(w, "latency.p50"), "");
  EXPECT_EQ(results::not_measured_reason(w, "throughput.rps"), "");
}

}  // namespace
}  // namespace benchgate::engine
