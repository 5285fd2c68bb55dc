// The change gate (docs/GATES.md, "Change gates"): a `kind = "change"` gate fails a run that starts
// a significant change of its series in the worse direction, judged against the series' own
// recent history instead of a named baseline.
//
//   history  = the series' latest runs before this one (at most kChangeGateHistory), each its
//              value as `history change` analyses it; the reference is the part of it after
//              the last change point detect_changes finds in it (the current level).
//   y        = the run's figure (results::metric_figure, the workload_figures value the report
//              prints and the history's points are), so y and a history point are one figure.
//   T_i      = the E-divisive statistic Q of the reference and the run pooled, split so that
//              point i alone is one side (energy_q with a side of one point), signed + when
//              point i lies on the worse side of the others' median and - otherwise.
//   p        = #{i : T_i >= T_y} / (m + 1) over the m + 1 pooled points: exact, no random
//              numbers. Under "no change" the run is exchangeable with its history, so T_y is
//              equally likely to take any rank; the smallest p is 1 / (m + 1).
//   change   = y / median(reference) - 1, worse when it goes the metric's bad way.
//   fail: worse by at least min_change and p < alpha; inconclusive: worse by at least
//   min_change, p >= alpha; pass otherwise. no_baseline: a reference too short for p to
//   reach below alpha (or under kChangeGateMinReference runs).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "orchestrator/gates/gate_outcome.h"
#include "orchestrator/scenario/scenario.h"

namespace benchgate::changes {

// The most history runs a change gate reads: the window of the change-point analysis.
inline constexpr size_t kChangeGateHistory = 50;
// The fewest runs of the current level a change gate compares with.
inline constexpr size_t kChangeGateMinReference = 5;

// One earlier run of the gated series.
struct HistoryPoint {
  int64_t run_id = 0;
  double value = 0;  // its figure (workload_figures.value), base units
};

// The reference runs needed for a p-value below alpha (1 / (m + 1) < alpha), at least
// kChangeGateMinReference.
size_t change_gate_runs_needed(double alpha);

// Decides a change gate. `run`: the run's figure of the metric and its repetitions' values
// (nullopt: not collected); `history`: the series' runs before this one, oldest first, each
// its figure (all are read; the caller passes at most kChangeGateHistory). Never throws;
// problems give kError.
gates::GateOutcome evaluate_change_gate(const scenario::Gate& gate,
                                        std::optional<gates::RunValues> run,
                                        std::span<const HistoryPoint> history);

}  // namespace benchgate::changes
