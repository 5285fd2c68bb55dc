// Bucket layout, recording and statistics of HdrHistogram (common/histogram/hdr_histogram.h).
// Figures that must match the Java reference bit for bit are checked in tests/interop/hdr;
// here the arithmetic is checked against hand-worked buckets and a brute-force model.
#include "common/histogram/hdr_histogram.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace benchgate {
namespace {

TEST(HdrHistogramLayout, DefaultConfigurationCoversOneNanosecondToOneHourWithThreeDigits) {
  HdrHistogram h;
  EXPECT_EQ(h.lowest(), 1);
  EXPECT_EQ(h.highest(), 3'600'000'000'000LL);
  EXPECT_EQ(h.significant_digits(), 3);
  // 2048 sub-buckets; 32 buckets reach 2048 * 2^31 > 3.6e12; (32 + 1) * 1024 counts.
  EXPECT_EQ(h.counts_length(), 33u * 1024u);
}

TEST(HdrHistogramLayout, ValuesBelowTwiceTheSubBucketCountHaveUnitResolution) {
  HdrHistogram h;
  for (int64_t v : {0LL, 1LL, 999LL, 1000LL, 2047LL}) {
    EXPECT_EQ(h.lowest_equivalent_value(v), v);
    EXPECT_EQ(h.highest_equivalent_value(v), v);
    EXPECT_EQ(h.counts_index_for(v), static_cast<size_t>(v));
    EXPECT_EQ(h.value_from_index(static_cast<size_t>(v)), v);
  }
}

TEST(HdrHistogramLayout, LargerValuesShareBucketsOfThreeSignificantDigits) {
  HdrHistogram h;
  // 10007 lies in bucket 3 (width 8): [10000, 10007].
  EXPECT_EQ(h.lowest_equivalent_value(10007), 10000);
  EXPECT_EQ(h.highest_equivalent_value(10000), 10007);
  EXPECT_EQ(h.median_equivalent_value(10001), 10004);
  EXPECT_EQ(h.counts_index_for(10000), h.counts_index_for(10007));
  EXPECT_NE(h.counts_index_for(10007), h.counts_index_for(10008));
  // Relative width of any bucket stays within 1/1000 of its values (3 significant digits).
  for (int64_t v = 2048; v < 3'600'000'000'000LL; v = v * 3 / 2 + 7) {
    const int64_t width = h.highest_equivalent_value(v) - h.lowest_equivalent_value(v) + 1;
    EXPECT_LE(static_cast<double>(width) / static_cast<double>(v), 1.0 / 1000) << v;
  }
}

TEST(HdrHistogramLayout, IndexAndValueAreInverseAtBucketBoundaries) {
  HdrHistogram h(1000, 3'600'000'000'000LL, 2);
  for (size_t i = 0; i < h.counts_length(); ++i) {
    const int64_t v = h.value_from_index(i);
    EXPECT_EQ(h.counts_index_for(v), i) << i;
    EXPECT_EQ(h.lowest_equivalent_value(v), v);
  }
}

TEST(HdrHistogramLayout, InvalidConfigurationsAreReportedAndClampedByTheConstructor) {
  EXPECT_FALSE(HdrHistogram::check_configuration(0, 100, 3));
  EXPECT_FALSE(HdrHistogram::check_configuration(10, 19, 3));
  EXPECT_FALSE(HdrHistogram::check_configuration(1, 100, 6));
  EXPECT_FALSE(HdrHistogram::check_configuration(1LL << 50, 1LL << 60, 5));
  EXPECT_TRUE(HdrHistogram::check_configuration(1, 2, 0));
  HdrHistogram h(0, 0, 9);
  EXPECT_EQ(h.lowest(), 1);
  EXPECT_EQ(h.highest(), 2);
  EXPECT_EQ(h.significant_digits(), 5);
}

TEST(HdrHistogramRecord, EmptyHistogramReportsZeros) {
  HdrHistogram h;
  EXPECT_EQ(h.total_count(), 0);
  EXPECT_EQ(h.min(), 0);
  EXPECT_EQ(h.max(), 0);
  EXPECT_EQ(h.mean(), 0.0);
  EXPECT_EQ(h.stddev(), 0.0);
  EXPECT_EQ(h.value_at_percentile(50), 0);
}

TEST(HdrHistogramRecord, MinMaxAndMeanAreReportedAtBucketResolution) {
  HdrHistogram h;
  h.record(10001);
  h.record(20);
  h.record_n(500, 2);
  EXPECT_EQ(h.total_count(), 4);
  EXPECT_EQ(h.min(), 20);
  EXPECT_EQ(h.max(), 10007);  // highest value equivalent to 10001
  // Mean uses each bucket's median equivalent value: (20 + 2 * 500 + 10004) / 4.
  EXPECT_DOUBLE_EQ(h.mean(), (20.0 + 1000.0 + 10004.0) / 4);
}

TEST(HdrHistogramRecord, ZeroIsRecordedAndMakesTheMinimumZero) {
  HdrHistogram h;
  h.record(0);
  h.record(5);
  EXPECT_EQ(h.min(), 0);
  EXPECT_EQ(h.max(), 5);
  EXPECT_EQ(h.value_at_percentile(50), 0);
  EXPECT_EQ(h.value_at_percentile(100), 5);
}

TEST(HdrHistogramRecord, ValuesAboveTheRangeAreClampedAndCounted) {
  HdrHistogram h(1, 1'000'000, 3);
  h.record(5'000'000);
  h.record_n(2'000'000, 3);
  h.record(-4);
  EXPECT_EQ(h.total_count(), 5);
  EXPECT_EQ(h.overflow_count(), 4);
  EXPECT_EQ(h.max(), h.highest_equivalent_value(1'000'000));
  EXPECT_EQ(h.min(), 0);  // the negative value was clamped to 0
}

TEST(HdrHistogramRecord, NonPositiveCountsRecordNothing) {
  HdrHistogram h;
  h.record_n(100, 0);
  h.record_n(100, -3);
  EXPECT_EQ(h.total_count(), 0);
}

TEST(HdrHistogramRecord, ResetClearsCountsAndKeepsConfiguration) {
  HdrHistogram h(10, 1'000'000, 2);
  h.record(12345);
  h.record(99'999'999);
  h.reset();
  EXPECT_EQ(h.total_count(), 0);
  EXPECT_EQ(h.overflow_count(), 0);
  EXPECT_EQ(h.max(), 0);
  EXPECT_EQ(h.lowest(), 10);
  int buckets = 0;
  h.for_each_recorded([&](int64_t, int64_t) { ++buckets; });
  EXPECT_EQ(buckets, 0);
}

TEST(HdrHistogramPercentile, HundredValuesGiveTheExpectedOrderStatistics) {
  HdrHistogram h;
  for (int v = 1; v <= 100; ++v) h.record(v);
  EXPECT_EQ(h.value_at_percentile(0), 1);
  EXPECT_EQ(h.value_at_percentile(50), 50);
  EXPECT_EQ(h.value_at_percentile(90), 90);
  EXPECT_EQ(h.value_at_percentile(99), 99);
  EXPECT_EQ(h.value_at_percentile(99.9), 100);
  EXPECT_EQ(h.value_at_percentile(100), 100);
  EXPECT_EQ(h.value_at_percentile(250), 100);  // clamped to 100
  EXPECT_EQ(h.value_at_percentile(-1), 1);
}

// Model of getValueAtPercentile over the raw values: the highest equivalent value of the
// ceil(p * n / 100)-th smallest value (p lowered by one ulp first).
int64_t model_percentile(const HdrHistogram& h, std::vector<int64_t> sorted, double p) {
  const double requested = std::nextafter(p, -INFINITY);
  const double fp = requested * static_cast<double>(sorted.size()) / 100.0;
  const auto rank = std::max<int64_t>(static_cast<int64_t>(std::ceil(fp)), 1);
  return h.highest_equivalent_value(sorted[static_cast<size_t>(rank - 1)]);
}

TEST(HdrHistogramPercentile, MatchesSortedValuesModelOnRandomData) {
  std::mt19937_64 rng(42);
  std::lognormal_distribution<double> latency(11.0, 1.5);  // around 60 us, long tail
  HdrHistogram h;
  std::vector<int64_t> values;
  for (int i = 0; i < 20000; ++i) {
    const auto v = static_cast<int64_t>(latency(rng));
    values.push_back(v);
    h.record(v);
  }
  std::sort(values.begin(), values.end());
  for (double p : {1.0, 10.0, 25.0, 50.0, 75.0, 90.0, 99.0, 99.9, 99.99, 100.0}) {
    EXPECT_EQ(h.value_at_percentile(p), model_percentile(h, values, p)) << p;
  }
  EXPECT_EQ(h.min(), h.lowest_equivalent_value(values.front()));
  EXPECT_EQ(h.max(), h.highest_equivalent_value(values.back()));
  // Mean and stddev at bucket resolution stay within 0.1% of the exact ones.
  double sum = 0;
  for (int64_t v : values) sum += static_cast<double>(v);
  const double exact_mean = sum / static_cast<double>(values.size());
  EXPECT_NEAR(h.mean(), exact_mean, exact_mean * 1e-3);
  double sq = 0;
  for (int64_t v : values) sq += (static_cast<double>(v) - exact_mean) * (v - exact_mean);
  const double exact_sd = std::sqrt(sq / static_cast<double>(values.size()));
  EXPECT_NEAR(h.stddev(), exact_sd, exact_sd * 2e-3);
}

TEST(HdrHistogramIterate, ForEachRecordedVisitsNonEmptyBucketsInValueOrder) {
  HdrHistogram h;
  h.record_n(10001, 2);
  h.record(3);
  h.record(10006);
  std::vector<std::pair<int64_t, int64_t>> seen;
  h.for_each_recorded([&](int64_t value, int64_t count) { seen.emplace_back(value, count); });
  const std::vector<std::pair<int64_t, int64_t>> expected{{3, 1}, {10007, 3}};
  EXPECT_EQ(seen, expected);
}

}  // namespace
}  // namespace benchgate
