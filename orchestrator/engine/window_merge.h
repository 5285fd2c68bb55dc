// Merges the per-worker results of one window into one repetition: counters are summed,
// histograms merged exactly (decoded from HdrHistogram V2 and added bucket by bucket), the
// data window spans the earliest first send to the latest last receive. A histogram of another
// layout is rejected: merging it would re-bucket it.
#pragma once

#include <vector>

#include "benchgate/v1/worker.pb.h"
#include "common/util/expected.h"
#include "orchestrator/results/results.h"

namespace benchgate::engine {

// Worker CPU at or above this share of its threads' capacity flags `worker_saturated`.
inline constexpr double kSaturationThreshold = 0.9;

Expected<results::Repetition> merge_window(const std::vector<v1::WindowResult>& parts,
                                           uint32_t index, int64_t start_unix_ns,
                                           int64_t duration_ns);

}  // namespace benchgate::engine
