// HdrHistogram V2 encoding (common/histogram/hdr_encoding.cc): round trips, the exact header
// layout, and rejection of malformed input without crashing or reading out of bounds.
// Byte-for-byte agreement with the Java reference is checked in tests/interop/hdr.
#include <gtest/gtest.h>
#include <zlib.h>

#include <limits>
#include <random>
#include <vector>

#include "common/histogram/hdr_histogram.h"

namespace benchgate {
namespace {

using Bytes = std::vector<uint8_t>;

HdrHistogram sample_histogram() {
  HdrHistogram h;
  std::mt19937_64 rng(11);
  for (int i = 0; i < 5000; ++i) h.record(static_cast<int64_t>(rng() >> (24 + i % 40)));
  h.record_n(0, 3);
  h.record_n(123'456'789, int64_t{1} << 60);  // a count that needs all nine varint bytes
  return h;
}

void expect_same_counts(const HdrHistogram& a, const HdrHistogram& b) {
  ASSERT_TRUE(a.same_configuration(b));
  std::vector<std::pair<int64_t, int64_t>> ca;
  std::vector<std::pair<int64_t, int64_t>> cb;
  a.for_each_recorded([&](int64_t v, int64_t c) { ca.emplace_back(v, c); });
  b.for_each_recorded([&](int64_t v, int64_t c) { cb.emplace_back(v, c); });
  EXPECT_EQ(ca, cb);
  EXPECT_EQ(a.total_count(), b.total_count());
  EXPECT_EQ(a.min(), b.min());
  EXPECT_EQ(a.max(), b.max());
  EXPECT_EQ(a.mean(), b.mean());
  EXPECT_EQ(a.value_at_percentile(99.9), b.value_at_percentile(99.9));
}

uint32_t be32(const Bytes& b, size_t at) {
  return (uint32_t{b[at]} << 24) | (uint32_t{b[at + 1]} << 16) | (uint32_t{b[at + 2]} << 8) |
         b[at + 3];
}

void set_be32(Bytes& b, size_t at, uint32_t v) {
  for (int k = 0; k < 4; ++k) b[at + k] = static_cast<uint8_t>(v >> (24 - 8 * k));
}

Bytes compress_with_header(const Bytes& raw) {
  uLongf length = compressBound(static_cast<uLong>(raw.size()));
  Bytes out(8 + length);
  EXPECT_EQ(compress2(out.data() + 8, &length, raw.data(), static_cast<uLong>(raw.size()), 6),
            Z_OK);
  out.resize(8 + length);
  set_be32(out, 0, 0x1c849314);
  set_be32(out, 4, static_cast<uint32_t>(length));
  return out;
}

TEST(HdrEncoding, CompressedRoundTripPreservesCountsAndConfiguration) {
  const HdrHistogram h = sample_histogram();
  auto decoded = HdrHistogram::decode(h.encode_compressed());
  ASSERT_TRUE(decoded) << decoded.message();
  expect_same_counts(h, *decoded);
}

TEST(HdrEncoding, UncompressedRoundTripPreservesCountsAndConfiguration) {
  const HdrHistogram h = sample_histogram();
  auto decoded = HdrHistogram::decode(h.encode_uncompressed());
  ASSERT_TRUE(decoded) << decoded.message();
  expect_same_counts(h, *decoded);
}

TEST(HdrEncoding, NonDefaultConfigurationRoundTrips) {
  HdrHistogram h(1000, 10'000'000'000LL, 2);
  for (int64_t v = 0; v < 9'000'000'000LL; v = v * 2 + 999) h.record(v);
  auto decoded = HdrHistogram::decode(h.encode_compressed());
  ASSERT_TRUE(decoded) << decoded.message();
  EXPECT_EQ(decoded->lowest(), 1000);
  EXPECT_EQ(decoded->highest(), 10'000'000'000LL);
  EXPECT_EQ(decoded->significant_digits(), 2);
  expect_same_counts(h, *decoded);
}

TEST(HdrEncoding, EmptyHistogramRoundTrips) {
  const HdrHistogram h;
  auto decoded = HdrHistogram::decode(h.encode_compressed());
  ASSERT_TRUE(decoded) << decoded.message();
  EXPECT_EQ(decoded->total_count(), 0);
  EXPECT_EQ(decoded->max(), 0);
}

TEST(HdrEncoding, HeaderHasTheV2LayoutAndCookies) {
  HdrHistogram h;
  h.record(1);
  h.record(5);
  const Bytes raw = h.encode_uncompressed();
  EXPECT_EQ(be32(raw, 0), 0x1c849313u);  // V2 cookie with the reference's word-size nibble
  EXPECT_EQ(be32(raw, 4), raw.size() - 40);
  EXPECT_EQ(be32(raw, 8), 0u);   // normalizing index offset
  EXPECT_EQ(be32(raw, 12), 3u);  // significant digits
  EXPECT_EQ(be32(raw, 16), 0u);
  EXPECT_EQ(be32(raw, 20), 1u);  // lowest
  EXPECT_EQ((uint64_t{be32(raw, 24)} << 32) | be32(raw, 28), 3'600'000'000'000ULL);
  EXPECT_EQ(be32(raw, 32), 0x3ff00000u);  // 1.0
  EXPECT_EQ(be32(raw, 36), 0u);
  // Counts 0,1,0,0,0,1: zigzag(0)=0, zigzag(1)=2, a run of three zeros -3 -> 5, then 2.
  const Bytes payload(raw.begin() + 40, raw.end());
  EXPECT_EQ(payload, (Bytes{0x00, 0x02, 0x05, 0x02}));
  const Bytes compressed = h.encode_compressed();
  EXPECT_EQ(be32(compressed, 0), 0x1c849314u);
  EXPECT_EQ(be32(compressed, 4), compressed.size() - 8);
}

TEST(HdrEncoding, CookieWithoutWordSizeNibbleIsAccepted) {
  HdrHistogram h;
  h.record(42);
  Bytes raw = h.encode_uncompressed();
  set_be32(raw, 0, 0x1c849303);
  auto decoded = HdrHistogram::decode(raw);
  ASSERT_TRUE(decoded) << decoded.message();
  EXPECT_EQ(decoded->max(), 42);
}

TEST(HdrEncodingMalformed, EveryTruncationIsRejected) {
  const HdrHistogram h = sample_histogram();
  for (const Bytes& full : {h.encode_uncompressed(), h.encode_compressed()}) {
    for (size_t n = 0; n < full.size(); ++n) {
      auto decoded = HdrHistogram::decode(std::span<const uint8_t>(full.data(), n));
      EXPECT_FALSE(decoded) << "prefix of " << n << " bytes accepted";
    }
  }
}

TEST(HdrEncodingMalformed, TrailingBytesAreRejected) {
  HdrHistogram h;
  h.record(1);
  for (Bytes bytes : {h.encode_uncompressed(), h.encode_compressed()}) {
    bytes.push_back(0);
    EXPECT_FALSE(HdrHistogram::decode(bytes));
  }
}

TEST(HdrEncodingMalformed, UnknownCookieIsRejectedWithAMessage) {
  Bytes bytes = HdrHistogram().encode_uncompressed();
  set_be32(bytes, 0, 0x1c849301);  // V1 cookie base
  auto decoded = HdrHistogram::decode(bytes);
  ASSERT_FALSE(decoded);
  EXPECT_NE(decoded.message().find("cookie"), std::string::npos);
}

TEST(HdrEncodingMalformed, InvalidConfigurationsInTheHeaderAreRejected) {
  const Bytes good = HdrHistogram().encode_uncompressed();
  auto with = [&](size_t at, uint32_t v) {
    Bytes b = good;
    set_be32(b, at, v);
    return b;
  };
  EXPECT_FALSE(HdrHistogram::decode(with(12, 6)));           // significant digits
  EXPECT_FALSE(HdrHistogram::decode(with(12, 0xffffffff)));  // negative digits
  EXPECT_FALSE(HdrHistogram::decode(with(20, 0)));           // lowest 0
  EXPECT_FALSE(HdrHistogram::decode(with(16, 0x80000000)));  // lowest negative
  EXPECT_FALSE(HdrHistogram::decode(with(24, 0x80000000)));  // highest negative
  EXPECT_FALSE(HdrHistogram::decode(with(8, 1)));            // normalizing offset
  EXPECT_FALSE(HdrHistogram::decode(with(4, 0xffffffff)));   // negative payload length
}

TEST(HdrEncodingMalformed, CountsBeyondTheLastBucketAreRejected) {
  HdrHistogram small(1, 2, 0);  // 3 counts
  Bytes raw = small.encode_uncompressed();
  raw.resize(40);
  const Bytes too_many{0x02, 0x02, 0x02, 0x02, 0x02};  // five counts of 1
  raw.insert(raw.end(), too_many.begin(), too_many.end());
  set_be32(raw, 4, static_cast<uint32_t>(too_many.size()));
  EXPECT_FALSE(HdrHistogram::decode(raw));

  Bytes run = Bytes(raw.begin(), raw.begin() + 40);
  run.push_back(0x09);  // a run of 5 zeros
  run.push_back(0x02);
  set_be32(run, 4, 2);
  EXPECT_FALSE(HdrHistogram::decode(run));
}

TEST(HdrEncodingMalformed, TotalCountOverflowIsRejected) {
  Bytes raw = HdrHistogram().encode_uncompressed();
  raw.resize(40);
  for (int k = 0; k < 2; ++k) {  // two counts of INT64_MAX, the widest varint
    const Bytes max_count{0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    raw.insert(raw.end(), max_count.begin(), max_count.end());
  }
  set_be32(raw, 4, 18);
  auto decoded = HdrHistogram::decode(raw);
  ASSERT_FALSE(decoded);
  EXPECT_NE(decoded.message().find("overflow"), std::string::npos);
}

TEST(HdrEncodingMalformed, CorruptDeflateStreamIsRejected) {
  HdrHistogram h;
  h.record(7);
  Bytes bytes = h.encode_compressed();
  for (size_t i = 8; i < bytes.size(); ++i) bytes[i] ^= 0x5a;
  EXPECT_FALSE(HdrHistogram::decode(bytes));
}

TEST(HdrEncodingMalformed, CompressedPayloadShorterOrLongerThanDeclaredIsRejected) {
  HdrHistogram h;
  h.record(7);
  const Bytes raw = h.encode_uncompressed();
  Bytes longer = raw;
  longer.push_back(0x02);  // one more byte than the header declares
  EXPECT_FALSE(HdrHistogram::decode(compress_with_header(longer)));
  Bytes claims_more = raw;
  set_be32(claims_more, 4, be32(raw, 4) + 1000);  // declares more than the stream holds
  EXPECT_FALSE(HdrHistogram::decode(compress_with_header(claims_more)));
  EXPECT_TRUE(HdrHistogram::decode(compress_with_header(raw)));
}

TEST(HdrEncodingMalformed, DeclaredPayloadLargerThanTheCountsAllowIsRejected) {
  Bytes raw = HdrHistogram(1, 2, 0).encode_uncompressed();
  set_be32(raw, 4, 0x7fffffff);
  auto decoded = HdrHistogram::decode(compress_with_header(raw));
  ASSERT_FALSE(decoded);
  EXPECT_NE(decoded.message().find("payload"), std::string::npos);
}

TEST(HdrEncodingMalformed, RandomCorruptionNeverCrashes) {
  const HdrHistogram h = sample_histogram();
  std::mt19937_64 rng(2024);
  int accepted = 0;
  for (const Bytes& good : {h.encode_uncompressed(), h.encode_compressed()}) {
    for (int trial = 0; trial < 3000; ++trial) {
      Bytes bytes = good;
      const int flips = 1 + static_cast<int>(rng() % 4);
      for (int f = 0; f < flips; ++f) {
        bytes[rng() % bytes.size()] ^= static_cast<uint8_t>(1u << (rng() % 8));
      }
      auto decoded = HdrHistogram::decode(bytes);
      if (decoded) {
        ++accepted;  // a flip inside a count can still be a valid histogram
        EXPECT_GE(decoded->total_count(), 0);
      }
    }
  }
  SUCCEED() << accepted << " mutated inputs decoded as valid histograms";
}

// decode_layout reads the header alone, in both forms: the layout of an encoding whose counts
// do not fit it (a header of 2 digits over counts bucketed for 3), which decode() refuses.
TEST(HdrEncoding, DecodeLayoutReadsTheHeaderAlone) {
  HdrHistogram h;
  h.record_n(1'000'000'000, 5);
  const Bytes good = h.encode_compressed();
  auto layout = HdrHistogram::decode_layout(good);
  ASSERT_TRUE(layout.ok()) << layout.message();
  EXPECT_EQ(*layout, h.layout());
  Bytes raw = h.encode_uncompressed();
  set_be32(raw, 12, 2);  // significant digits
  const HdrHistogram::Layout declared{1, 3'600'000'000'000, 2};
  for (const Bytes& bytes : {raw, compress_with_header(raw)}) {
    EXPECT_FALSE(HdrHistogram::decode(bytes).ok());
    layout = HdrHistogram::decode_layout(bytes);
    ASSERT_TRUE(layout.ok()) << layout.message();
    EXPECT_EQ(*layout, declared);
  }
  EXPECT_FALSE(HdrHistogram::decode_layout(Bytes{0x13, 0x37, 0, 0, 1}).ok());
  EXPECT_FALSE(HdrHistogram::decode_layout(Bytes(good.begin(), good.begin() + 10)).ok());
}

}  // namespace
}  // namespace benchgate
