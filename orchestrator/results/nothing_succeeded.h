// The rule that a workload whose every operation failed did not pass: its measured windows
// completed no success and counted errors (every request answered 500, every call timed out,
// every connection refused), so its only figures are its errors. Stored as `ok` it would exit 0
// and could become a baseline (docs/MEASUREMENT.md, "Operations, successes and errors").
#pragma once

#include <string>

#include "orchestrator/results/results.h"

namespace benchgate::results {

// Why `workload`, which measured every repetition it was asked for, still failed: no repetition
// completed a success and at least one counted an error, e.g. "no request succeeded in 3
// repetitions: 1200 requests, 1200 errors (status 1200)". "" when it did not (a success in
// any repetition, or no repetition), and when the workload sets `expect_failures = true`
// (failing is what it measures). A workload with neither successes nor errors is failed
// earlier, repetition by repetition, as one that measured nothing (engine/workload_runner.cc).
std::string nothing_succeeded_reason(const WorkloadResult& workload);

}  // namespace benchgate::results
