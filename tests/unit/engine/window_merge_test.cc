// Merging the per-worker results of one window: exact sums and histograms.
#include "orchestrator/engine/window_merge.h"

#include <gtest/gtest.h>

#include <string>

namespace benchgate::engine {
namespace {

v1::WindowResult part(uint64_t successes, int64_t first, int64_t last, int64_t latency_ns,
                      int64_t cpu_ns = 0, int64_t wall_ns = 1'000'000'000) {
  v1::WindowResult r;
  r.set_operations(successes);
  r.set_successes(successes);
  r.set_bytes_received(successes * 100);
  r.set_first_send_unix_ns(first);
  r.set_last_receive_unix_ns(last);
  HdrHistogram h;
  h.record_n(latency_ns, static_cast<int64_t>(successes));
  auto blob = h.encode_compressed();
  r.mutable_latency()->set_hdr_v2_compressed(std::string(blob.begin(), blob.end()));
  r.set_cpu_user_ns(cpu_ns);
  r.set_wall_ns(wall_ns);
  r.set_threads(1);
  return r;
}

TEST(WindowMerge, SumsCountersAndMergesHistogramsExactly) {
  auto a = part(100, 1'000, 1'000'000'000, 1000);
  auto b = part(50, 500, 1'500'000'000, 2000);
  (*b.mutable_errors())["status"] = 3;
  b.set_operations(53);
  auto rep = merge_window({a, b}, 0, 0, 1'000'000'000);
  ASSERT_TRUE(rep.ok()) << rep.message();
  EXPECT_EQ(rep->operations, 153u);
  EXPECT_EQ(rep->successes, 150u);
  EXPECT_EQ(rep->error_count(), 3u);
  EXPECT_EQ(rep->errors.at("status"), 3u);
  EXPECT_EQ(rep->latency.total_count(), 150);
  EXPECT_EQ(rep->bytes_received, 15000u);
  // Data window: earliest first send to latest last receive.
  EXPECT_EQ(rep->data_window_ns, 1'500'000'000 - 500);
  EXPECT_EQ(rep->latency.value_at_percentile(50), rep->latency.highest_equivalent_value(1000));
}

TEST(WindowMerge, ASaturatedWorkerIsFlagged) {
  auto busy = part(10, 1, 2, 1000, /*cpu_ns=*/950'000'000);
  auto rep = merge_window({busy}, 0, 0, 1'000'000'000);
  ASSERT_TRUE(rep.ok());
  EXPECT_NEAR(rep->worker_cpu_utilization, 0.95, 1e-9);
  ASSERT_EQ(rep->flags.size(), 1u);
  EXPECT_EQ(rep->flags[0], "worker_saturated");
}

// Exact merging needs one layout; another is rejected with its layout named (as worker-check
// does), never re-bucketed.
TEST(WindowMerge, AHistogramOfAnotherLayoutIsRejected) {
  auto other = part(10, 1, 2, 1000);
  HdrHistogram h(1, 1'000'000'000, 2);
  h.record_n(1000, 10);
  auto blob = h.encode_compressed();
  other.mutable_latency()->set_hdr_v2_compressed(std::string(blob.begin(), blob.end()));
  auto rep = merge_window({part(10, 1, 2, 1000), other}, 0, 0, 1'000'000'000);
  ASSERT_FALSE(rep.ok());
  EXPECT_NE(rep.message().find("worker 1 sent a latency histogram of another layout: "
                               "1..1000000000 ns with 2 digits"),
            std::string::npos)
      << rep.message();
}

TEST(WindowMerge, AHistogramThatDisagreesWithTheCountsIsAnError) {
  auto bad = part(10, 1, 2, 1000);
  bad.set_successes(11);
  auto rep = merge_window({bad}, 0, 0, 1'000'000'000);
  ASSERT_FALSE(rep.ok());
  EXPECT_NE(rep.message().find("latency samples"), std::string::npos);
}

TEST(WindowMerge, TheWorkerWhoseCountsDisagreeIsNamed) {
  auto bad = part(10, 1, 2, 1000);
  bad.set_successes(9);
  auto rep = merge_window({part(10, 1, 2, 1000), bad}, 0, 0, 1'000'000'000);
  ASSERT_FALSE(rep.ok());
  EXPECT_NE(rep.message().find("worker 1 sent a malformed result: 9 successful operations but 10 "
                               "latency samples"),
            std::string::npos)
      << rep.message();
}

TEST(WindowMerge, AnUnreadableHistogramIsAnError) {
  auto bad = part(10, 1, 2, 1000);
  bad.mutable_latency()->set_hdr_v2_compressed("garbage");
  auto rep = merge_window({bad}, 0, 0, 1'000'000'000);
  ASSERT_FALSE(rep.ok());
  EXPECT_NE(rep.message().find("worker 0"), std::string::npos);
}

}  // namespace
}  // namespace benchgate::engine
