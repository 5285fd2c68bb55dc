// HdrHistogram V2 encoding, the format every HdrHistogram implementation reads and writes.
//
// Uncompressed form, all integers big-endian:
//   int32 cookie (0x1c849303 | 0x10: the reference sets the word-size nibble and readers mask
//   it off), int32 payload length, int32 normalizing index offset (0), int32 significant
//   digits, int64 lowest discernible value, int64 highest trackable value, double
//   integer-to-double ratio (1.0): 40 bytes; then the payload, the counts from index 0 to the
//   highest non-empty one, each as ZigZag LEB128 (at most 9 bytes, the ninth carrying 8 bits),
//   runs of two or more empty buckets written as the negated run length.
// Compressed form: int32 cookie (0x1c849304 | 0x10), int32 length of what follows, then a zlib
// stream (deflate with zlib header) of the uncompressed form.
//
// decode() treats its input as untrusted: every read is bounds-checked, the configuration is
// validated before anything is allocated, and inflation stops at the declared sizes.
#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <limits>

#include "common/histogram/hdr_histogram.h"

namespace benchgate {
namespace {

constexpr uint32_t kV2CookieBase = 0x1c849303;
constexpr uint32_t kV2CompressedCookieBase = 0x1c849304;
constexpr uint32_t kWordSizeNibble = 0x10;
constexpr uint32_t kCookieVariantMask = 0xf0;
constexpr size_t kHeaderSize = 40;
constexpr size_t kCompressedHeaderSize = 8;
constexpr size_t kMaxVarintBytes = 9;

uint32_t cookie_base(uint32_t cookie) { return cookie & ~kCookieVariantMask; }

void put_u32(std::vector<uint8_t>& out, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<uint8_t>(v >> shift));
}

void put_u64(std::vector<uint8_t>& out, uint64_t v) {
  for (int shift = 56; shift >= 0; shift -= 8) out.push_back(static_cast<uint8_t>(v >> shift));
}

uint32_t get_u32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
}

uint64_t get_u64(const uint8_t* p) { return (uint64_t{get_u32(p)} << 32) | get_u32(p + 4); }

void put_zigzag(std::vector<uint8_t>& out, int64_t value) {
  uint64_t z = (static_cast<uint64_t>(value) << 1) ^ static_cast<uint64_t>(value >> 63);
  for (size_t i = 0; i + 1 < kMaxVarintBytes; ++i) {
    if (z < 0x80) {
      out.push_back(static_cast<uint8_t>(z));
      return;
    }
    out.push_back(static_cast<uint8_t>((z & 0x7f) | 0x80));
    z >>= 7;
  }
  out.push_back(static_cast<uint8_t>(z));  // ninth byte: the remaining 8 bits, no flag
}

// Reads one ZigZag LEB128 value at `pos`; false if the input ends inside it.
bool get_zigzag(std::span<const uint8_t> in, size_t& pos, int64_t& value) {
  uint64_t z = 0;
  for (size_t i = 0; i < kMaxVarintBytes; ++i) {
    if (pos >= in.size()) return false;
    const uint8_t byte = in[pos++];
    if (i + 1 == kMaxVarintBytes) {
      z |= uint64_t{byte} << 56;
      break;
    }
    z |= uint64_t{byte & 0x7fu} << (7 * i);
    if ((byte & 0x80) == 0) break;
  }
  value = static_cast<int64_t>(z >> 1) ^ -static_cast<int64_t>(z & 1);
  return true;
}

struct Header {
  uint32_t cookie;
  int32_t payload_length;
  int32_t normalizing_index_offset;
  int32_t significant_digits;
  int64_t lowest;
  int64_t highest;
};

Header parse_header(const uint8_t* p) {
  return Header{get_u32(p),
                static_cast<int32_t>(get_u32(p + 4)),
                static_cast<int32_t>(get_u32(p + 8)),
                static_cast<int32_t>(get_u32(p + 12)),
                static_cast<int64_t>(get_u64(p + 16)),
                static_cast<int64_t>(get_u64(p + 24))};
}

// Checks the header and builds the empty histogram it describes, plus the largest payload such
// a histogram can have (every bucket at the widest varint), which bounds what we read.
Expected<HdrHistogram> histogram_for(const Header& h, size_t& max_payload) {
  if (cookie_base(h.cookie) != kV2CookieBase) {
    return Error{"histogram encoding: not an HdrHistogram V2 encoding"};
  }
  if (h.payload_length < 0) return Error{"histogram encoding: negative payload length"};
  if (h.normalizing_index_offset != 0) {
    return Error{"histogram encoding: non-zero normalizing index offset is not supported"};
  }
  auto valid = HdrHistogram::check_configuration(h.lowest, h.highest, h.significant_digits);
  if (!valid) return Error{"histogram encoding: " + valid.message()};
  HdrHistogram histogram(h.lowest, h.highest, h.significant_digits);
  max_payload = histogram.counts_length() * kMaxVarintBytes;
  if (static_cast<size_t>(h.payload_length) > max_payload) {
    return Error{"histogram encoding: payload longer than the histogram's counts allow"};
  }
  return histogram;
}

// Owns a zlib inflate stream over a fixed input; frees it on every path.
class Inflater {
 public:
  explicit Inflater(std::span<const uint8_t> in) {
    std::memset(&stream_, 0, sizeof(stream_));
    stream_.next_in = const_cast<Bytef*>(in.data());  // zlib's API is not const-correct
    stream_.avail_in = static_cast<uInt>(in.size());
    ok_ = inflateInit(&stream_) == Z_OK;
  }
  ~Inflater() {
    if (ok_) inflateEnd(&stream_);
  }
  Inflater(const Inflater&) = delete;
  Inflater& operator=(const Inflater&) = delete;

  // Fills exactly out.size() bytes; false if the stream is corrupt or ends first.
  bool read(std::span<uint8_t> out) {
    if (!ok_) return false;
    stream_.next_out = out.data();
    stream_.avail_out = static_cast<uInt>(out.size());
    while (stream_.avail_out > 0) {
      const int rc = inflate(&stream_, Z_NO_FLUSH);
      if (rc == Z_STREAM_END) {
        ended_ = true;
        break;
      }
      if (rc != Z_OK) return false;
    }
    return stream_.avail_out == 0;
  }

  // True when the stream ends here and all input was consumed.
  bool at_clean_end() {
    if (!ok_) return false;
    if (!ended_) {
      uint8_t extra = 0;
      stream_.next_out = &extra;
      stream_.avail_out = 1;
      if (inflate(&stream_, Z_NO_FLUSH) != Z_STREAM_END || stream_.avail_out == 0) return false;
    }
    return stream_.avail_in == 0;
  }

 private:
  z_stream stream_;
  bool ok_ = false;
  bool ended_ = false;
};

// Fills the counts of `histogram` from a V2 payload.
Expected<void> fill_counts(std::span<const uint8_t> payload, std::vector<int64_t>& counts) {
  const auto length = static_cast<int64_t>(counts.size());
  int64_t index = 0;
  int64_t total = 0;
  size_t pos = 0;
  while (pos < payload.size()) {
    int64_t value = 0;
    if (!get_zigzag(payload, pos, value)) {
      return Error{"histogram encoding: payload ends inside a count"};
    }
    if (value < 0) {
      if (value < -length || index > length + value) {
        return Error{"histogram encoding: run of empty buckets past the end of the counts"};
      }
      index -= value;
      continue;
    }
    if (index >= length) return Error{"histogram encoding: more counts than buckets"};
    if (value > std::numeric_limits<int64_t>::max() - total) {
      return Error{"histogram encoding: total count overflows"};
    }
    total += value;
    counts[static_cast<size_t>(index++)] = value;
  }
  return {};
}

}  // namespace

std::vector<uint8_t> HdrHistogram::encode_uncompressed() const {
  size_t limit = counts_.size();
  while (limit > 1 && counts_[limit - 1] == 0) --limit;
  if (limit == 0) limit = 1;

  std::vector<uint8_t> out;
  out.reserve(kHeaderSize + 64);
  put_u32(out, kV2CookieBase | kWordSizeNibble);
  put_u32(out, 0);  // payload length, patched below
  put_u32(out, 0);  // normalizing index offset
  put_u32(out, static_cast<uint32_t>(significant_digits_));
  put_u64(out, static_cast<uint64_t>(lowest_));
  put_u64(out, static_cast<uint64_t>(highest_));
  uint64_t ratio_bits = 0;
  const double ratio = 1.0;
  std::memcpy(&ratio_bits, &ratio, sizeof(ratio));
  put_u64(out, ratio_bits);

  for (size_t i = 0; i < limit;) {
    const int64_t count = counts_[i++];
    int64_t zeros = 0;
    if (count == 0) {
      zeros = 1;
      while (i < limit && counts_[i] == 0) {
        ++zeros;
        ++i;
      }
    }
    put_zigzag(out, zeros > 1 ? -zeros : count);
  }
  const auto payload_length = static_cast<uint32_t>(out.size() - kHeaderSize);
  for (int k = 0; k < 4; ++k) out[4 + k] = static_cast<uint8_t>(payload_length >> (24 - 8 * k));
  return out;
}

std::vector<uint8_t> HdrHistogram::encode_compressed() const {
  const std::vector<uint8_t> raw = encode_uncompressed();
  uLongf compressed_length = compressBound(static_cast<uLong>(raw.size()));
  std::vector<uint8_t> out(kCompressedHeaderSize + compressed_length);
  const int rc = compress2(out.data() + kCompressedHeaderSize, &compressed_length, raw.data(),
                           static_cast<uLong>(raw.size()), Z_DEFAULT_COMPRESSION);
  if (rc != Z_OK) return {};  // only on out-of-memory, which the bound above rules out
  out.resize(kCompressedHeaderSize + compressed_length);
  std::vector<uint8_t> head;
  put_u32(head, kV2CompressedCookieBase | kWordSizeNibble);
  put_u32(head, static_cast<uint32_t>(compressed_length));
  std::memcpy(out.data(), head.data(), kCompressedHeaderSize);
  return out;
}

Expected<HdrHistogram::Layout> HdrHistogram::decode_layout(std::span<const uint8_t> bytes) {
  if (bytes.size() < 4) return Error{"histogram encoding: shorter than a cookie"};
  const uint32_t cookie = get_u32(bytes.data());
  uint8_t raw_header[kHeaderSize];
  if (cookie_base(cookie) == kV2CookieBase) {
    if (bytes.size() < kHeaderSize) return Error{"histogram encoding: truncated header"};
    std::memcpy(raw_header, bytes.data(), kHeaderSize);
  } else if (cookie_base(cookie) == kV2CompressedCookieBase) {
    if (bytes.size() < kCompressedHeaderSize) {
      return Error{"histogram encoding: truncated compressed header"};
    }
    Inflater inflater(bytes.subspan(kCompressedHeaderSize));
    if (!inflater.read(raw_header)) {
      return Error{"histogram encoding: corrupt or truncated compressed header"};
    }
  } else {
    return Error{"histogram encoding: not an HdrHistogram V2 encoding (unknown cookie)"};
  }
  const Header header = parse_header(raw_header);
  if (cookie_base(header.cookie) != kV2CookieBase) {
    return Error{"histogram encoding: not an HdrHistogram V2 encoding"};
  }
  return Layout{header.lowest, header.highest, header.significant_digits};
}

Expected<HdrHistogram> HdrHistogram::decode(std::span<const uint8_t> bytes) {
  if (bytes.size() < 4) return Error{"histogram encoding: shorter than a cookie"};
  const uint32_t cookie = get_u32(bytes.data());
  size_t max_payload = 0;

  if (cookie_base(cookie) == kV2CookieBase) {
    if (bytes.size() < kHeaderSize) return Error{"histogram encoding: truncated header"};
    const Header header = parse_header(bytes.data());
    auto histogram = histogram_for(header, max_payload);
    if (!histogram) return histogram;
    if (bytes.size() != kHeaderSize + static_cast<size_t>(header.payload_length)) {
      return Error{"histogram encoding: size does not match the declared payload length"};
    }
    auto filled = fill_counts(bytes.subspan(kHeaderSize), histogram->counts_);
    if (!filled) return filled.error();
    histogram->establish_tracking_values();
    return histogram;
  }

  if (cookie_base(cookie) != kV2CompressedCookieBase) {
    return Error{"histogram encoding: not an HdrHistogram V2 encoding (unknown cookie)"};
  }
  if (bytes.size() < kCompressedHeaderSize) {
    return Error{"histogram encoding: truncated compressed header"};
  }
  const auto compressed_length = static_cast<int32_t>(get_u32(bytes.data() + 4));
  if (compressed_length < 0 ||
      bytes.size() != kCompressedHeaderSize + static_cast<size_t>(compressed_length)) {
    return Error{"histogram encoding: size does not match the declared compressed length"};
  }
  Inflater inflater(bytes.subspan(kCompressedHeaderSize));
  uint8_t raw_header[kHeaderSize];
  if (!inflater.read(raw_header)) {
    return Error{"histogram encoding: corrupt or truncated compressed header"};
  }
  const Header header = parse_header(raw_header);
  auto histogram = histogram_for(header, max_payload);
  if (!histogram) return histogram;
  // Grow with what actually inflates, so a short input cannot make us reserve the declared
  // (already bounded) length up front.
  std::vector<uint8_t> payload;
  for (size_t left = static_cast<size_t>(header.payload_length); left > 0;) {
    const size_t chunk = std::min<size_t>(left, 64 * 1024);
    const size_t old_size = payload.size();
    payload.resize(old_size + chunk);
    if (!inflater.read(std::span<uint8_t>(payload).subspan(old_size))) {
      return Error{"histogram encoding: compressed payload corrupt or shorter than declared"};
    }
    left -= chunk;
  }
  if (!inflater.at_clean_end()) {
    return Error{"histogram encoding: compressed data longer than declared"};
  }
  auto filled = fill_counts(payload, histogram->counts_);
  if (!filled) return filled.error();
  histogram->establish_tracking_values();
  return histogram;
}

}  // namespace benchgate
