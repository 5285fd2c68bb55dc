// A gate on the latency figure of a worker adapter's tool (wrk, h2load: no histogram) explains
// the figure as what it is (docs/GATES.md, "What a gate judges"): the median of the
// repetitions' tool figures, the max of their max; never "repetitions merged".
#include <gtest/gtest.h>

#include "orchestrator/gating/run_gates.h"

namespace benchgate::gating {
namespace {

results::WorkloadResult wrapped_tool() {
  results::WorkloadResult w;
  w.spec.name = "hello_wrk";
  for (uint32_t i = 0; i < 2; ++i) {
    results::Repetition rep;
    rep.index = i;
    rep.duration_ns = 1'000'000'000;
    rep.in_window = true;
    rep.operations = rep.successes = rep.window_successes = 1000;
    results::ToolLatency t;
    t.tool = "wrk 4.2.0";
    t.mean_ns = 100'000;
    t.max_ns = i == 0 ? 400'000 : 900'000;
    t.percentiles_ns[results::percentile_key(99)] = i == 0 ? 150'000 : 180'000;
    rep.tool_latency = t;
    w.repetitions.push_back(rep);
  }
  return w;
}

gates::GateOutcome judged(const results::WorkloadResult& w, const std::string& metric) {
  scenario::Gate gate;
  gate.workload = "hello_wrk";
  gate.metric = metric;
  gate.max = 1.0;
  auto evaluated = evaluate_gates({gate}, {values_of(w)}, GateContext{});
  EXPECT_EQ(evaluated.size(), 1u);
  return evaluated.empty() ? gates::GateOutcome{} : evaluated[0].outcome;
}

TEST(ToolFigure, AToolsPercentileIsExplainedAsTheMedianOfTheRepetitions) {
  const gates::GateOutcome o = judged(wrapped_tool(), "latency.p99");
  EXPECT_EQ(o.verdict, gates::Verdict::kPass);
  EXPECT_EQ(o.explanation, "165us (median of 2 repetitions) within max 1s");
}

TEST(ToolFigure, AToolsMaxIsExplainedAsTheMaxOfTheRepetitions) {
  const gates::GateOutcome o = judged(wrapped_tool(), "latency.max");
  EXPECT_EQ(o.explanation, "900us (max of 2 repetitions) within max 1s");
}

TEST(ToolFigure, AHistogramsPercentileIsStillTheRepetitionsMerged) {
  results::WorkloadResult w = wrapped_tool();
  for (auto& rep : w.repetitions) {
    rep.tool_latency.reset();
    rep.latency.record_n(200'000, 1000);
    w.latency.add(rep.latency);
  }
  const gates::GateOutcome o = judged(w, "latency.p99");
  EXPECT_NE(o.explanation.find("(2 repetitions merged) within max 1s"), std::string::npos)
      << o.explanation;
}

}  // namespace
}  // namespace benchgate::gating
