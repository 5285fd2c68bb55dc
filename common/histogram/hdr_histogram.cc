// Bucket layout, recording, merging and statistics of HdrHistogram. The arithmetic follows
// HdrHistogram (Java 2.1.11) step for step, floating point included, so that percentiles,
// mean and standard deviation come out bit-identical to what the reference reports for the
// same counts (tests/interop/hdr checks this against the Java library).
#include "common/histogram/hdr_histogram.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

namespace benchgate {
namespace {

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

// ceil(log2(2 * 10^digits)): the sub-bucket count magnitude. Integer arithmetic gives the
// same result as the reference's floating-point formula for every allowed digit count.
int sub_bucket_count_magnitude(int significant_digits) {
  int64_t largest_single_unit = 2;
  for (int i = 0; i < significant_digits; ++i) largest_single_unit *= 10;
  int magnitude = 0;
  while ((int64_t{1} << magnitude) < largest_single_unit) ++magnitude;
  return magnitude;
}

// floor(log2(lowest)) computed as the reference computes it, with doubles: for lowest values
// just below a large power of two the double formula rounds up, and matching it keeps the
// bucket layout (hence the encoding) identical.
int unit_magnitude_for(int64_t lowest) {
  return static_cast<int>(std::log(static_cast<double>(lowest)) / std::log(2.0));
}

int buckets_needed_to_cover(int64_t value, int32_t sub_bucket_count, int unit_magnitude) {
  int64_t smallest_untrackable = int64_t{sub_bucket_count} << unit_magnitude;
  int buckets = 1;
  while (smallest_untrackable <= value) {
    if (smallest_untrackable > kInt64Max / 2) return buckets + 1;
    smallest_untrackable <<= 1;
    ++buckets;
  }
  return buckets;
}

}  // namespace

Expected<void> HdrHistogram::check_configuration(int64_t lowest, int64_t highest,
                                                 int significant_digits) {
  if (lowest < 1) return Error{"histogram lowest discernible value must be >= 1"};
  if (significant_digits < 0 || significant_digits > 5) {
    return Error{"histogram significant digits must be in [0, 5]"};
  }
  if (lowest > kInt64Max / 2 || highest < 2 * lowest) {
    return Error{"histogram highest trackable value must be >= 2 * lowest"};
  }
  if (unit_magnitude_for(lowest) + sub_bucket_count_magnitude(significant_digits) > 62) {
    return Error{"histogram cannot represent that many significant digits above lowest"};
  }
  return {};
}

HdrHistogram::HdrHistogram(int64_t lowest, int64_t highest, int significant_digits) {
  // Clamp rather than throw: a histogram is always usable, and decode() validates first.
  significant_digits = std::clamp(significant_digits, 0, 5);
  const int count_magnitude = sub_bucket_count_magnitude(significant_digits);
  lowest = std::clamp<int64_t>(lowest, 1, int64_t{1} << (62 - count_magnitude));
  while (unit_magnitude_for(lowest) + count_magnitude > 62) lowest /= 2;
  highest = std::max(highest, 2 * lowest);

  lowest_ = lowest;
  highest_ = highest;
  significant_digits_ = significant_digits;
  unit_magnitude_ = unit_magnitude_for(lowest);
  unit_magnitude_mask_ = (int64_t{1} << unit_magnitude_) - 1;
  sub_bucket_half_count_magnitude_ = count_magnitude - 1;
  sub_bucket_count_ = int32_t{1} << count_magnitude;
  sub_bucket_half_count_ = sub_bucket_count_ / 2;
  sub_bucket_mask_ = (int64_t{sub_bucket_count_} - 1) << unit_magnitude_;
  leading_zero_count_base_ = 64 - unit_magnitude_ - count_magnitude;
  bucket_count_ = buckets_needed_to_cover(highest, sub_bucket_count_, unit_magnitude_);
  counts_.assign(static_cast<size_t>(bucket_count_ + 1) * sub_bucket_half_count_, 0);
  min_value_ = kInt64Max;
  max_value_ = 0;
}

int HdrHistogram::bucket_index(int64_t value) const {
  return leading_zero_count_base_ -
         std::countl_zero(static_cast<uint64_t>(value | sub_bucket_mask_));
}

int32_t HdrHistogram::sub_bucket_index(int64_t value, int bucket) const {
  return static_cast<int32_t>(static_cast<uint64_t>(value) >> (bucket + unit_magnitude_));
}

size_t HdrHistogram::counts_index_for(int64_t value) const {
  const int bucket = bucket_index(value);
  const int32_t sub_bucket = sub_bucket_index(value, bucket);
  const int64_t bucket_base = int64_t{bucket + 1} << sub_bucket_half_count_magnitude_;
  return static_cast<size_t>(bucket_base + (sub_bucket - sub_bucket_half_count_));
}

int64_t HdrHistogram::value_from_index(size_t index) const {
  int bucket = static_cast<int>(index >> sub_bucket_half_count_magnitude_) - 1;
  int64_t sub_bucket =
      static_cast<int64_t>(index & static_cast<size_t>(sub_bucket_half_count_ - 1)) +
      sub_bucket_half_count_;
  if (bucket < 0) {
    sub_bucket -= sub_bucket_half_count_;
    bucket = 0;
  }
  return sub_bucket << (bucket + unit_magnitude_);
}

int64_t HdrHistogram::size_of_equivalent_range(int64_t value) const {
  const int bucket = bucket_index(value);
  const int32_t sub_bucket = sub_bucket_index(value, bucket);
  const int adjusted = sub_bucket >= sub_bucket_count_ ? bucket + 1 : bucket;
  return int64_t{1} << (unit_magnitude_ + adjusted);
}

int64_t HdrHistogram::lowest_equivalent_value(int64_t value) const {
  const int bucket = bucket_index(value);
  const int64_t sub_bucket = sub_bucket_index(value, bucket);
  return sub_bucket << (bucket + unit_magnitude_);
}

int64_t HdrHistogram::highest_equivalent_value(int64_t value) const {
  const int64_t lowest = lowest_equivalent_value(value);
  const int64_t last_step = size_of_equivalent_range(value) - 1;
  // In a histogram that tracks values near INT64_MAX (a decoded one may), the top bucket's
  // range ends past it; its highest value is then INT64_MAX (found by fuzz/hdr_decode_fuzz).
  if (lowest > kInt64Max - last_step) return kInt64Max;
  return lowest + last_step;
}

int64_t HdrHistogram::median_equivalent_value(int64_t value) const {
  return lowest_equivalent_value(value) + (size_of_equivalent_range(value) >> 1);
}

void HdrHistogram::record_n(int64_t value, int64_t count) {
  if (count <= 0) return;
  if (value < 0) {
    value = 0;
  } else if (value > highest_) {
    value = highest_;
    overflow_count_ += count;
  }
  counts_[counts_index_for(value)] += count;
  total_count_ += count;
  if (value > max_value_) max_value_ = value;
  if (value != 0 && value < min_value_) min_value_ = value;
}

bool HdrHistogram::same_configuration(const HdrHistogram& other) const {
  return lowest_ == other.lowest_ && highest_ == other.highest_ &&
         significant_digits_ == other.significant_digits_;
}

bool HdrHistogram::add(const HdrHistogram& other) {
  // Counts are never negative and total_count_ is their sum (overflow_count_ a part of it), so
  // one check of the totals keeps every bucket's sum within int64 too: all or nothing, and
  // one comparison whatever the number of buckets.
  int64_t total = 0;
  if (__builtin_add_overflow(total_count_, other.total_count_, &total)) return false;
  if (same_configuration(other)) {
    for (size_t i = 0; i < counts_.size(); ++i) counts_[i] += other.counts_[i];
    total_count_ = total;
    overflow_count_ += other.overflow_count_;
    max_value_ = std::max(max_value_, other.max_value_);
    min_value_ = std::min(min_value_, other.min_value_);
    return true;
  }
  // Different layouts: re-record each bucket at its lowest equivalent value, as the reference
  // does. Refuse up front (changing nothing) if that would clamp values.
  if (other.total_count_ == 0) return true;
  size_t last = other.counts_.size();
  while (last > 0 && other.counts_[last - 1] == 0) --last;
  if (last > 0 && other.value_from_index(last - 1) > highest_) return false;
  for (size_t i = 0; i < last; ++i) {
    if (other.counts_[i] != 0) record_n(other.value_from_index(i), other.counts_[i]);
  }
  overflow_count_ += other.overflow_count_;
  return true;
}

void HdrHistogram::reset() {
  std::fill(counts_.begin(), counts_.end(), 0);
  total_count_ = 0;
  overflow_count_ = 0;
  min_value_ = kInt64Max;
  max_value_ = 0;
}

void HdrHistogram::establish_tracking_values() {
  total_count_ = 0;
  min_value_ = kInt64Max;
  max_value_ = 0;
  for (size_t i = 0; i < counts_.size(); ++i) {
    if (counts_[i] == 0) continue;
    total_count_ += counts_[i];
    max_value_ = highest_equivalent_value(value_from_index(i));
    if (i != 0 && min_value_ == kInt64Max) min_value_ = value_from_index(i);
  }
}

int64_t HdrHistogram::min() const {
  if (total_count_ == 0 || counts_[0] > 0 || min_value_ == kInt64Max) return 0;
  return lowest_equivalent_value(min_value_);
}

int64_t HdrHistogram::max() const {
  return max_value_ == 0 ? 0 : highest_equivalent_value(max_value_);
}

// Sums in index order, value by value, exactly as the reference's recorded-values iteration
// does, so the double result is bit-identical.
double HdrHistogram::mean() const {
  if (total_count_ == 0) return 0.0;
  double total = 0.0;
  for (size_t i = 0; i < counts_.size(); ++i) {
    if (counts_[i] == 0) continue;
    const double median = static_cast<double>(median_equivalent_value(value_from_index(i)));
    total += median * static_cast<double>(counts_[i]);
  }
  return total / static_cast<double>(total_count_);
}

double HdrHistogram::stddev() const {
  if (total_count_ == 0) return 0.0;
  const double mu = mean();
  double total = 0.0;
  for (size_t i = 0; i < counts_.size(); ++i) {
    if (counts_[i] == 0) continue;
    const double deviation = static_cast<double>(median_equivalent_value(value_from_index(i))) - mu;
    total += (deviation * deviation) * static_cast<double>(counts_[i]);
  }
  return std::sqrt(total / static_cast<double>(total_count_));
}

int64_t HdrHistogram::value_at_percentile(double percentile) const {
  // One ulp below the request keeps p * n / 100 from rounding up into the next bucket.
  double requested = std::nextafter(percentile, -std::numeric_limits<double>::infinity());
  if (!(requested > 0.0)) requested = 0.0;  // also maps NaN to 0
  requested = std::min(requested, 100.0);
  const double fp_count = requested * static_cast<double>(total_count_) / 100.0;
  const int64_t count_at = std::max<int64_t>(static_cast<int64_t>(std::ceil(fp_count)), 1);
  int64_t running = 0;
  for (size_t i = 0; i < counts_.size(); ++i) {
    running += counts_[i];
    if (running >= count_at) {
      const int64_t value = value_from_index(i);
      return percentile == 0.0 ? lowest_equivalent_value(value) : highest_equivalent_value(value);
    }
  }
  return 0;
}

}  // namespace benchgate
