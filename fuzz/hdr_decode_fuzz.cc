// libFuzzer target: HdrHistogram::decode over arbitrary bytes (compressed and uncompressed V2
// encodings arrive from workers, possibly third-party ones). A histogram that decodes must
// re-encode and decode to the same configuration and total count.
#include <cstddef>
#include <cstdint>
#include <span>

#include "common/histogram/hdr_histogram.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using benchgate::HdrHistogram;
  auto decoded = HdrHistogram::decode(std::span<const uint8_t>(data, size));
  if (!decoded) return 0;
  const auto encoded = decoded->encode_uncompressed();
  auto again = HdrHistogram::decode(encoded);
  if (!again || !again->same_configuration(*decoded) ||
      again->total_count() != decoded->total_count()) {
    __builtin_trap();
  }
  return 0;
}
