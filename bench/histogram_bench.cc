// Cost of HdrHistogram operations: record() is on every request's path, add() and the
// encodings run once per thread per window (docs/MEASUREMENT.md). Values are latency-like
// (log-normal around 60 us) and precomputed, so the loop measures the histogram only.
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "common/histogram/hdr_histogram.h"

namespace {

using benchgate::HdrHistogram;

std::vector<int64_t> latency_values(size_t n) {
  std::mt19937_64 rng(1);
  std::lognormal_distribution<double> latency(11.0, 1.5);
  std::vector<int64_t> values(n);
  for (int64_t& v : values) v = static_cast<int64_t>(latency(rng));
  return values;
}

HdrHistogram filled(size_t n) {
  HdrHistogram h;
  for (int64_t v : latency_values(n)) h.record(v);
  return h;
}

void BM_Record(benchmark::State& state) {
  const std::vector<int64_t> values = latency_values(1 << 16);
  HdrHistogram h;
  size_t i = 0;
  for (auto _ : state) {
    h.record(values[i]);
    i = (i + 1) & (values.size() - 1);
  }
  benchmark::DoNotOptimize(h.total_count());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Record);

void BM_Merge(benchmark::State& state) {
  const HdrHistogram source = filled(static_cast<size_t>(state.range(0)));
  HdrHistogram target;
  for (auto _ : state) {
    target.add(source);
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_Merge)->Arg(1000)->Arg(1000000);

void BM_EncodeCompressed(benchmark::State& state) {
  const HdrHistogram h = filled(static_cast<size_t>(state.range(0)));
  size_t bytes = 0;
  for (auto _ : state) {
    bytes = h.encode_compressed().size();
    benchmark::DoNotOptimize(bytes);
  }
  state.counters["encoded_bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_EncodeCompressed)->Arg(1000)->Arg(1000000);

void BM_EncodeUncompressed(benchmark::State& state) {
  const HdrHistogram h = filled(static_cast<size_t>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(h.encode_uncompressed().size());
}
BENCHMARK(BM_EncodeUncompressed)->Arg(1000)->Arg(1000000);

void BM_DecodeCompressed(benchmark::State& state) {
  const std::vector<uint8_t> bytes = filled(1000000).encode_compressed();
  for (auto _ : state) benchmark::DoNotOptimize(HdrHistogram::decode(bytes).ok());
}
BENCHMARK(BM_DecodeCompressed);

void BM_Percentiles(benchmark::State& state) {
  const HdrHistogram h = filled(1000000);
  for (auto _ : state) {
    for (double p : {50.0, 90.0, 99.0, 99.9}) benchmark::DoNotOptimize(h.value_at_percentile(p));
  }
}
BENCHMARK(BM_Percentiles);

}  // namespace

BENCHMARK_MAIN();
