// Merging histograms (HdrHistogram::add): per-thread histograms merged at the end of a window
// must give exactly the histogram of all values (docs/MEASUREMENT.md).
#include <gtest/gtest.h>

#include <limits>
#include <random>
#include <vector>

#include "common/histogram/hdr_histogram.h"

namespace benchgate {
namespace {

std::vector<std::pair<int64_t, int64_t>> buckets(const HdrHistogram& h) {
  std::vector<std::pair<int64_t, int64_t>> out;
  h.for_each_recorded([&](int64_t value, int64_t count) { out.emplace_back(value, count); });
  return out;
}

void expect_identical(const HdrHistogram& a, const HdrHistogram& b) {
  EXPECT_EQ(buckets(a), buckets(b));
  EXPECT_EQ(a.total_count(), b.total_count());
  EXPECT_EQ(a.overflow_count(), b.overflow_count());
  EXPECT_EQ(a.min(), b.min());
  EXPECT_EQ(a.max(), b.max());
  EXPECT_EQ(a.mean(), b.mean());  // bitwise: computed from identical counts
  EXPECT_EQ(a.stddev(), b.stddev());
  for (double p : {0.0, 50.0, 90.0, 99.0, 99.9, 99.99, 100.0}) {
    EXPECT_EQ(a.value_at_percentile(p), b.value_at_percentile(p)) << p;
  }
  EXPECT_EQ(a.encode_uncompressed(), b.encode_uncompressed());
}

TEST(HdrHistogramMerge, MergingPerThreadHistogramsEqualsOneHistogramOfAllValues) {
  constexpr int kThreads = 4;
  std::vector<HdrHistogram> per_thread(kThreads);
  HdrHistogram all;
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int> magnitude(0, 43);  // up to 2^43: some overflow 1 h
  for (int i = 0; i < 40000; ++i) {
    const int64_t v = static_cast<int64_t>(rng() >> (64 - magnitude(rng) - 1)) >> 1;
    const int64_t count = (i % 97 == 0) ? 5 : 1;
    per_thread[static_cast<size_t>(i % kThreads)].record_n(v, count);
    all.record_n(v, count);
  }
  ASSERT_GT(all.overflow_count(), 0);
  HdrHistogram merged;
  for (const HdrHistogram& h : per_thread) ASSERT_TRUE(merged.add(h));
  expect_identical(merged, all);
}

TEST(HdrHistogramMerge, MergingAnEmptyHistogramChangesNothing) {
  HdrHistogram h;
  h.record(1234);
  HdrHistogram before = h;
  ASSERT_TRUE(h.add(HdrHistogram()));
  expect_identical(h, before);
}

TEST(HdrHistogramMerge, MergingIntoAnEmptyHistogramCopiesMinAndMax) {
  HdrHistogram source;
  source.record(17);
  source.record(123456789);
  HdrHistogram target;
  ASSERT_TRUE(target.add(source));
  EXPECT_EQ(target.min(), 17);
  EXPECT_EQ(target.max(), source.max());
}

TEST(HdrHistogramMerge, DifferentConfigurationsMergeAtEquivalentValues) {
  HdrHistogram narrow(1, 1'000'000, 3);
  for (int64_t v : {5LL, 1500LL, 999'999LL}) narrow.record(v);
  HdrHistogram wide;
  ASSERT_TRUE(wide.add(narrow));
  EXPECT_EQ(wide.total_count(), 3);
  EXPECT_EQ(wide.min(), 5);
  EXPECT_EQ(wide.value_at_percentile(50), 1500);
  EXPECT_EQ(wide.max(), wide.highest_equivalent_value(narrow.lowest_equivalent_value(999'999)));
}

TEST(HdrHistogramMerge, MergeRefusesValuesOutsideTheTargetRangeAndChangesNothing) {
  HdrHistogram wide;
  wide.record(10);
  wide.record(50'000'000);
  HdrHistogram narrow(1, 1'000'000, 3);
  narrow.record(3);
  EXPECT_FALSE(narrow.add(wide));
  EXPECT_EQ(narrow.total_count(), 1);
  EXPECT_EQ(narrow.max(), 3);
}

// Decoding keeps each histogram's own total within int64; two of them need not sum within it
// (two workers' windows of 2^62 + 2^61 samples each). add() refuses such a sum and changes
// nothing, where the counts and the total overflowed (UB) to negative figures.
TEST(HdrHistogramMerge, MergeRefusesCountsPastInt64AndChangesNothing) {
  constexpr int64_t kMany = (int64_t{1} << 62) + (int64_t{1} << 61);
  HdrHistogram target;
  target.record_n(1000, kMany);
  target.record(5);
  HdrHistogram source;
  source.record_n(1000, kMany);
  source.record(7'000'000);
  const HdrHistogram before = target;
  EXPECT_FALSE(target.add(source));
  expect_identical(target, before);
  EXPECT_EQ(target.total_count(), kMany + 1);
  EXPECT_EQ(target.max(), before.max());
  // Another layout, re-recorded bucket by bucket: refused up front as well.
  HdrHistogram other(1, 1'000'000'000, 2);
  other.record_n(1000, kMany);
  EXPECT_FALSE(target.add(other));
  expect_identical(target, before);
  // Up to INT64_MAX exactly, the sum is taken.
  HdrHistogram rest;
  rest.record_n(1000, std::numeric_limits<int64_t>::max() - kMany - 1);
  ASSERT_TRUE(target.add(rest));
  EXPECT_EQ(target.total_count(), std::numeric_limits<int64_t>::max());
}

}  // namespace
}  // namespace benchgate
