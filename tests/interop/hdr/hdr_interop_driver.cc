// C++ side of the HdrHistogram interoperability test (see run_interop.sh): the mirror of
// HdrInterop.java, recording the same deterministic values with benchgate::HdrHistogram, or
// decoding what Java wrote, and printing the same figures in the same format.
//
//   hdr_interop_driver write <case> <file>   writes <file> (compressed) and <file>.raw
//   hdr_interop_driver read <case> <file>    decodes <file>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "common/histogram/hdr_histogram.h"

namespace {

using benchgate::HdrHistogram;

// splitmix64, bit-identical to HdrInterop.java's generator.
uint64_t state;

uint64_t next() {
  state += 0x9E3779B97F4A7C15ULL;
  uint64_t z = state;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

bool build(const std::string& name, HdrHistogram& out) {
  int n = 0;
  if (name == "default") {
    out = HdrHistogram(1, 3'600'000'000'000LL, 3);
    n = 100000;
  } else if (name == "coarse") {
    out = HdrHistogram(1000, 3'600'000'000'000LL, 2);
    n = 20000;
  } else if (name == "positive") {
    out = HdrHistogram(1, 3'600'000'000'000LL, 3);
    n = 50000;
  } else if (name == "empty") {
    out = HdrHistogram(1, 3'600'000'000'000LL, 3);
    return true;
  } else {
    return false;
  }
  state = 20240601ULL;
  for (int i = 0; i < n; ++i) {
    const int bits = static_cast<int>((next() >> 32) % 42);
    int64_t v = bits == 0 ? 0 : static_cast<int64_t>(next() >> (64 - bits));
    if (name == "positive") v += 1;  // no zeros: min is a real bucket
    out.record_n(v, i % 1000 == 999 ? 7 : 1);
  }
  return true;
}

uint64_t bits_of(double d) {
  uint64_t b = 0;
  std::memcpy(&b, &d, sizeof(b));
  return b;
}

// Java prints doubles like 99.9 as "99.9" and 50 as "50.0"; the labels are fixed strings.
void print(const HdrHistogram& h) {
  std::printf("lowest=%" PRId64 "\nhighest=%" PRId64 "\ndigits=%d\n", h.lowest(), h.highest(),
              h.significant_digits());
  std::printf("total=%" PRId64 "\nmin=%" PRId64 "\nmax=%" PRId64 "\n", h.total_count(), h.min(),
              h.max());
  const std::pair<const char*, double> percentiles[] = {
      {"0.0", 0.0},   {"50.0", 50.0},   {"90.0", 90.0},  {"99.0", 99.0},
      {"99.9", 99.9}, {"99.99", 99.99}, {"100.0", 100.0}};
  for (const auto& [label, p] : percentiles) {
    std::printf("p%s=%" PRId64 "\n", label, h.value_at_percentile(p));
  }
  std::printf("mean_bits=%016" PRIx64 "\nstddev_bits=%016" PRIx64 "\n", bits_of(h.mean()),
              bits_of(h.stddev()));
}

bool write_file(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  return static_cast<bool>(out);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s write|read <case> <file>\n", argv[0]);
    return 2;
  }
  const std::string mode = argv[1];
  const std::string path = argv[3];
  if (mode == "write") {
    HdrHistogram h;
    if (!build(argv[2], h)) {
      std::fprintf(stderr, "unknown case %s\n", argv[2]);
      return 2;
    }
    if (!write_file(path, h.encode_compressed()) ||
        !write_file(path + ".raw", h.encode_uncompressed())) {
      std::fprintf(stderr, "cannot write %s\n", path.c_str());
      return 1;
    }
    print(h);
    return 0;
  }
  if (mode == "read") {
    std::ifstream in(path, std::ios::binary);
    const std::vector<uint8_t> bytes{std::istreambuf_iterator<char>(in),
                                     std::istreambuf_iterator<char>()};
    auto decoded = HdrHistogram::decode(bytes);
    if (!decoded) {
      std::fprintf(stderr, "decode %s: %s\n", path.c_str(), decoded.message().c_str());
      return 1;
    }
    print(*decoded);
    return 0;
  }
  std::fprintf(stderr, "mode must be write or read\n");
  return 2;
}
