// router --inject-work-ns N: a calibration aid that makes the router slower by a known amount.
// Every HTTP request and every WAMP CALL spins on the CPU for N nanoseconds before it is
// answered, so `bench/gate_calibration.sh` (and anyone checking their gates) can inject a
// slowdown of a chosen size and see whether a gate catches it. Busy work, not a sleep: it
// costs CPU like real work would and holds the serving thread, as slower code does. 0: off.
#pragma once

#include <cstdint>

namespace benchgate::router::metrics {

// Spins until `ns` nanoseconds of the monotonic clock have passed; returns at once for 0.
void inject_work(int64_t ns);

}  // namespace benchgate::router::metrics
