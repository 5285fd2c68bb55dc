// A gate on a variant that is not configured (its program is not installed), or a paired gate
// judged against one, says which variant and why once: the stored reason starts with its kind
// ("not_configured: ..."), which the explanation's own words say already.
#include <gtest/gtest.h>

#include "orchestrator/gating/run_gates.h"

namespace benchgate::gating {
namespace {

scenario::Gate max_gate(const std::string& variant) {
  scenario::Gate gate;
  gate.workload = "hello";
  gate.variant = variant;
  gate.metric = "throughput.rps";
  gate.min = 1.0;
  return gate;
}

WorkloadValues workload(const std::string& variant, const std::string& status,
                        const std::string& error) {
  WorkloadValues w;
  w.name = "hello";
  w.variant = variant;
  w.status = status;
  w.error = error;
  w.values = [](const std::string&) { return std::optional<std::vector<double>>(); };
  w.figure = [](const std::string&) { return std::optional<double>(); };
  return w;
}

const std::string kMissing =
    "not_configured: 'my-router-build' is not installed (not found on PATH)";

TEST(NotConfigured, AVariantThatIsNotInstalledIsNamedWithItsReasonOnce) {
  const auto gates = evaluate_gates({max_gate("cand")},
                                    {workload("cand", "not_configured", kMissing)}, GateContext{});
  ASSERT_EQ(gates.size(), 1u);
  EXPECT_EQ(gates[0].outcome.verdict, gates::Verdict::kNotConfigured);
  EXPECT_EQ(gates[0].outcome.explanation,
            "variant cand is not configured: 'my-router-build' is not installed (not found on "
            "PATH)");
}

TEST(NotConfigured, APairedGateAgainstAVariantThatIsNotInstalledNamesThatVariant) {
  scenario::Gate paired = max_gate("main");
  paired.min.reset();
  paired.against = "cand";
  paired.max_regression = 0.05;
  const auto gates = evaluate_gates(
      {paired}, {workload("main", "ok", ""), workload("cand", "not_configured", kMissing)},
      GateContext{});
  ASSERT_EQ(gates.size(), 1u);
  EXPECT_EQ(gates[0].outcome.verdict, gates::Verdict::kNotConfigured);
  EXPECT_EQ(gates[0].outcome.explanation,
            "variant cand is not configured: 'my-router-build' is not installed (not found on "
            "PATH)");
}

// A plain workload (no [compare]) has no variant to name: the workload is named.
TEST(NotConfigured, APlainWorkloadWhoseWorkerIsNotInstalledIsNamedAsTheWorkload) {
  const auto gates = evaluate_gates(
      {max_gate("*")},
      {workload("default", "not_configured",
                "not_configured: worker 'h2load': 'h2load' is not installed (not found on PATH)")},
      GateContext{});
  ASSERT_EQ(gates.size(), 1u);
  EXPECT_EQ(gates[0].outcome.verdict, gates::Verdict::kNotConfigured);
  EXPECT_EQ(gates[0].outcome.explanation,
            "workload hello is not configured: worker 'h2load': 'h2load' is not installed (not "
            "found on PATH)");
}

}  // namespace
}  // namespace benchgate::gating
