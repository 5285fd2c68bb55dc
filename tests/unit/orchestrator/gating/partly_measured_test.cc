// A gate on errors.count or errors.rate of a workload whose workers declared an error kind not
// measured (the h2load adapter's `errors.connect`: its failed connects are counted nowhere) is
// an error, never a pass: the count is a lower bound (docs/GATES.md). A lying third-party worker
// that declared `errors.timeout` not measured passed `errors.count max = 0` with "0 within max
// 0" before.
#include <gtest/gtest.h>

#include "orchestrator/gating/run_gates.h"

namespace benchgate::gating {
namespace {

results::WorkloadResult errors_measured_by(const std::vector<std::string>& not_measured,
                                           const std::string& variant = "") {
  results::WorkloadResult w;
  w.spec.name = "hello";
  w.variant = variant;
  for (uint32_t i = 0; i < 2; ++i) {
    results::Repetition rep;
    rep.index = i;
    rep.duration_ns = 1'000'000'000;
    rep.in_window = true;
    rep.operations = rep.successes = rep.window_successes = 1000;
    rep.not_measured.insert(not_measured.begin(), not_measured.end());
    w.repetitions.push_back(rep);
  }
  return w;
}

scenario::Gate errors_max_gate(const std::string& metric) {
  scenario::Gate gate;
  gate.workload = "hello";
  gate.metric = metric;
  gate.max = 0;
  return gate;
}

TEST(PartlyMeasured, AnErrorsGateOnAWorkloadWithAnErrorKindNotMeasuredIsAnError) {
  const results::WorkloadResult w = errors_measured_by({"errors.timeout", "errors.connect"});
  for (const std::string metric : {"errors.count", "errors.rate"}) {
    const auto evaluated = evaluate_gates({errors_max_gate(metric)}, {values_of(w)}, GateContext{});
    ASSERT_EQ(evaluated.size(), 1u);
    EXPECT_EQ(evaluated[0].outcome.verdict, gates::Verdict::kError) << metric;
    EXPECT_EQ(evaluated[0].outcome.explanation,
              metric +
                  " was not fully measured: the workers cannot detect errors of kind connect, "
                  "timeout (declared not measured), so the 0 errors counted are a lower bound");
  }
}

TEST(PartlyMeasured, ALowerBoundAlreadyPastTheMaxFails) {
  results::WorkloadResult w = errors_measured_by({"errors.connect"});
  for (auto& rep : w.repetitions) {
    rep.successes = rep.window_successes = 990;
    rep.errors["status"] = 10;
  }
  const auto evaluated =
      evaluate_gates({errors_max_gate("errors.count")}, {values_of(w)}, GateContext{});
  ASSERT_EQ(evaluated.size(), 1u);
  EXPECT_EQ(evaluated[0].outcome.verdict, gates::Verdict::kFail)
      << evaluated[0].outcome.explanation;
}

TEST(PartlyMeasured, OtherGatesAndFullyMeasuredErrorsAreJudgedAsBefore) {
  // Another field not measured does not make the error count partial.
  const results::WorkloadResult w = errors_measured_by({"bytes_sent", "data_window"});
  const auto errors =
      evaluate_gates({errors_max_gate("errors.count")}, {values_of(w)}, GateContext{});
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].outcome.verdict, gates::Verdict::kPass);
  // An error kind not measured leaves throughput gates alone.
  const results::WorkloadResult partial = errors_measured_by({"errors.connect"});
  scenario::Gate rps;
  rps.workload = "hello";
  rps.metric = "throughput.rps";
  rps.min = 1;
  const auto judged = evaluate_gates({rps}, {values_of(partial)}, GateContext{});
  ASSERT_EQ(judged.size(), 1u);
  EXPECT_EQ(judged[0].outcome.verdict, gates::Verdict::kPass);
}

}  // namespace
}  // namespace benchgate::gating
