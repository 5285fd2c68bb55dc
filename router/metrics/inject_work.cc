// Busy work of a given duration (inject_work.h).
#include "router/metrics/inject_work.h"

#include <time.h>

namespace benchgate::router::metrics {
namespace {

int64_t monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

}  // namespace

void inject_work(int64_t ns) {
  if (ns <= 0) return;
  const int64_t until = monotonic_ns() + ns;
  // The clock read is the work: a few tens of nanoseconds per turn (vDSO), nothing the
  // compiler can drop, and the loop ends on time however fast the CPU is.
  while (monotonic_ns() < until) {
  }
}

}  // namespace benchgate::router::metrics
