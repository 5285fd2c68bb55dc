// An HDR (high dynamic range) histogram of non-negative integer values, compatible with
// HdrHistogram: log-linear buckets with a fixed number of significant decimal digits, exact
// merging of histograms of the same configuration, and the standard compressed V2 encoding
// so any HdrHistogram implementation can read what benchgate writes and vice versa.
//
// benchgate records latencies in nanoseconds with the default configuration: 1 ns to 1 hour,
// 3 significant digits. Recording is O(1) and allocation-free; one histogram per thread,
// merged with add() at the end of a window (docs/CONTRIBUTING.md, rule 9).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "common/util/expected.h"

namespace benchgate {

class HdrHistogram {
 public:
  static constexpr int64_t kDefaultLowest = 1;                     // 1 ns
  static constexpr int64_t kDefaultHighest = 3'600'000'000'000LL;  // 1 h in ns
  static constexpr int kDefaultSignificantDigits = 3;

  // lowest >= 1, highest >= 2 * lowest, significant_digits in [0, 5].
  explicit HdrHistogram(int64_t lowest = kDefaultLowest, int64_t highest = kDefaultHighest,
                        int significant_digits = kDefaultSignificantDigits);

  // Records one value (count times). Values above highest() are clamped to highest() and
  // counted in overflow_count(); negative values are clamped to 0. Never allocates.
  void record(int64_t value) { record_n(value, 1); }
  void record_n(int64_t value, int64_t count);

  // Adds every count of `other`. Exact when both have the same configuration; otherwise each
  // bucket of `other` is re-recorded at its equivalent value. Returns false, changing nothing,
  // when the total count would pass INT64_MAX (each histogram's fits, their sum need not), or
  // when the configurations differ and values of `other` fall outside this histogram's range.
  bool add(const HdrHistogram& other);

  // Clears all counts, keeps the configuration.
  void reset();

  int64_t total_count() const { return total_count_; }
  // Smallest and largest recorded value (at bucket resolution, as HdrHistogram reports);
  // 0 when empty.
  int64_t min() const;
  int64_t max() const;
  double mean() const;
  double stddev() const;
  // The value at or below which `percentile` percent (0..100) of recorded values fall, as
  // HdrHistogram's getValueAtPercentile computes it. 0 when empty.
  int64_t value_at_percentile(double percentile) const;
  // Values clamped into range by record().
  int64_t overflow_count() const { return overflow_count_; }

  int64_t lowest() const { return lowest_; }
  int64_t highest() const { return highest_; }
  int significant_digits() const { return significant_digits_; }
  bool same_configuration(const HdrHistogram& other) const;

  // Whether the constructor accepts this configuration as given (the constructor clamps
  // invalid arguments into range instead); decode() uses it to reject bad headers. The bounds
  // are HdrHistogram's, including unit magnitude + sub-bucket magnitude <= 62.
  static Expected<void> check_configuration(int64_t lowest, int64_t highest,
                                            int significant_digits);

  // HdrHistogram V2 encoding, deflate-compressed (cookie 0x1c849304).
  std::vector<uint8_t> encode_compressed() const;
  // HdrHistogram V2 encoding, uncompressed (cookie 0x1c849303).
  std::vector<uint8_t> encode_uncompressed() const;
  // Decodes either form. The result has the configuration found in the encoding.
  static Expected<HdrHistogram> decode(std::span<const uint8_t> bytes);

  // The configuration an encoding declares, read from its header alone (either form), before
  // any count: a caller that requires one layout names the layout of an encoding made for
  // another, where decode() would fail on counts that do not fit the declared one.
  struct Layout {
    int64_t lowest = 0;
    int64_t highest = 0;
    int significant_digits = 0;
    bool operator==(const Layout&) const = default;
  };
  static Expected<Layout> decode_layout(std::span<const uint8_t> bytes);
  Layout layout() const { return {lowest_, highest_, significant_digits_}; }

  // Iteration over non-empty buckets: calls fn(value_equivalent, count) in value order,
  // where value_equivalent is the highest value equivalent to the bucket (as HdrHistogram's
  // recorded-values iterator reports it). For reports and tests.
  template <class Fn>
  void for_each_recorded(Fn&& fn) const {
    for (size_t i = 0; i < counts_.size(); ++i) {
      if (counts_[i] != 0) fn(highest_equivalent_value(value_from_index(i)), counts_[i]);
    }
  }

  // Bucket arithmetic, public for tests and for the encoder. counts_index_for() expects
  // 0 <= value <= highest_equivalent_value(highest()).
  size_t counts_index_for(int64_t value) const;
  int64_t value_from_index(size_t index) const;
  int64_t lowest_equivalent_value(int64_t value) const;
  int64_t highest_equivalent_value(int64_t value) const;
  int64_t median_equivalent_value(int64_t value) const;
  size_t counts_length() const { return counts_.size(); }

 private:
  int bucket_index(int64_t value) const;
  int32_t sub_bucket_index(int64_t value, int bucket_index) const;
  int64_t size_of_equivalent_range(int64_t value) const;
  // Recomputes total, min and max from counts_ (after decoding).
  void establish_tracking_values();

  int64_t lowest_;
  int64_t highest_;
  int significant_digits_;
  int unit_magnitude_;
  int64_t unit_magnitude_mask_;
  int leading_zero_count_base_;
  int sub_bucket_half_count_magnitude_;
  int32_t sub_bucket_count_;
  int32_t sub_bucket_half_count_;
  int64_t sub_bucket_mask_;
  int32_t bucket_count_;
  std::vector<int64_t> counts_;
  int64_t total_count_ = 0;
  int64_t overflow_count_ = 0;
  int64_t min_value_;  // raw minimum recorded non-zero value, INT64_MAX when none
  int64_t max_value_;  // raw maximum recorded value, 0 when none
};

}  // namespace benchgate
