// A gate whose workload did not run, because the run was interrupted before it started, says so
// in every report alike: the workload as the gate names it (no "[*]", the pattern for every
// variant, shown as if it were a variant), an error whose explanation says it did not run and
// why, and in JSON workload_ran = false.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "orchestrator/gating/run_gates.h"
#include "orchestrator/report/gate_report.h"
#include "orchestrator/report/json_report.h"

namespace benchgate::gating {
namespace {

scenario::Gate max_gate(const std::string& workload, const std::string& variant) {
  scenario::Gate gate;
  gate.workload = workload;
  gate.variant = variant;
  gate.metric = "latency.p99";
  gate.max = 1.0;
  return gate;
}

std::vector<EvaluatedGate> interrupted_before_second() {
  GateContext context;
  context.stopped_before = "the run was interrupted";
  // No workload ran: the interrupt came before "second" (and every variant of it) started.
  return evaluate_gates({max_gate("second", "*"), max_gate("sec*", "*"), max_gate("second", "b")},
                        {}, context);
}

TEST(NotRun, AGateOnAWorkloadThatDidNotRunSaysWhyAndNamesNoVariant) {
  const auto gates = interrupted_before_second();
  ASSERT_EQ(gates.size(), 3u);
  for (const EvaluatedGate& g : gates) {
    EXPECT_FALSE(g.workload_ran);
    EXPECT_EQ(g.outcome.verdict, gates::Verdict::kError);
  }
  EXPECT_EQ(gates[0].workload, "second");
  EXPECT_EQ(gates[0].variant, "");
  EXPECT_EQ(gates[0].outcome.explanation,
            "workload second did not run: the run was interrupted before it started");
  EXPECT_EQ(gates[1].workload, "sec*");
  EXPECT_EQ(gates[1].outcome.explanation,
            "no workload matching sec* ran: the run was interrupted before it started");
  EXPECT_EQ(gates[2].variant, "b");
  EXPECT_EQ(gates[2].outcome.explanation,
            "workload second (variant b) did not run: the run was interrupted before it started");
  // Nothing known of why: the run stopped, as is all that can be said.
  EXPECT_EQ(evaluate_gates({max_gate("second", "*")}, {}, GateContext{})[0].outcome.explanation,
            "workload second did not run: the run stopped before it started");
}

// An abandoned run (its orchestrator killed) stores nothing of the workload it was running:
// `gate RUN` says the workload has no stored result, not that it did not run "before it
// started" (it had run its warm-up and a repetition in the walkthrough that found this).
TEST(NotRun, AWorkloadOfAnAbandonedRunHasNoStoredResultRatherThanNotRunning) {
  GateContext context;
  context.stopped_before = "the run was abandoned (its orchestrator was killed)";
  context.abandoned = true;
  const auto gates = evaluate_gates({max_gate("second", "*"), max_gate("sec*", "b")}, {}, context);
  ASSERT_EQ(gates.size(), 2u);
  EXPECT_EQ(gates[0].outcome.verdict, gates::Verdict::kError);
  EXPECT_EQ(gates[0].outcome.explanation,
            "workload second has no stored result: the run was abandoned (its orchestrator was "
            "killed) before the workload finished");
  EXPECT_EQ(gates[1].outcome.explanation,
            "no workload matching sec* (variant b) has a stored result: the run was abandoned "
            "(its orchestrator was killed) before the workload finished");
}

// A gate the loader refuses now (`gate RUN` on a stored run) whose workload did not run is not
// judged for the refusal, as one whose workload ran: its reason is the refusal, and no report
// says the workload did not run.
TEST(NotRun, ARefusedGateOnAWorkloadThatDidNotRunGivesTheRefusal) {
  GateContext context;
  context.stopped_before = "the run was interrupted";
  scenario::Gate refused = max_gate("second", "*");
  refused.refused = "line 11: gate metric 'handshakes.rate' can never be measured";
  const auto gates = evaluate_gates({refused}, {}, context);
  ASSERT_EQ(gates.size(), 1u);
  EXPECT_TRUE(gates[0].workload_ran);
  EXPECT_EQ(gates[0].outcome.verdict, gates::Verdict::kError);
  EXPECT_EQ(gates[0].outcome.explanation,
            "the scenario loader now refuses this gate, so it is not judged: line 11: gate "
            "metric 'handshakes.rate' can never be measured");
  report::ScenarioReport r;
  r.result.scenario = "s";
  r.gates = gates;
  EXPECT_EQ(report::scenario_json(r).at("gates").at(0).at("workload_ran"), true);
}

TEST(NotRun, EveryReportSaysTheWorkloadDidNotRunAndShowsNoPatternAsAVariant) {
  report::ScenarioReport r;
  r.result.scenario = "s";
  r.result.interrupted = true;
  r.gates = interrupted_before_second();
  const std::string why = "workload second did not run: the run was interrupted before it started";

  const std::string table = report::gates_table(r.gates);
  EXPECT_EQ(table.find("[*]"), std::string::npos) << table;
  EXPECT_NE(table.find("  error         critical second "), std::string::npos) << table;
  EXPECT_NE(table.find(why), std::string::npos) << table;
  EXPECT_NE(table.find("second [b]"), std::string::npos) << table;

  const std::string md = report::markdown_summary({r});
  EXPECT_EQ(md.find("| * |"), std::string::npos) << md;
  EXPECT_NE(md.find("| **error** | critical | second | - | latency.p99 | - | - | " + why + " |"),
            std::string::npos)
      << md;

  const std::string xml = report::junit_xml({r});
  EXPECT_EQ(xml.find("[*]"), std::string::npos) << xml;
  EXPECT_NE(xml.find("name=\"second latency.p99 (gate #1)\"><failure type=\"error\" message=\"" +
                     why + "\"/>"),
            std::string::npos)
      << xml;

  const nlohmann::json json = report::scenario_json(r);
  const nlohmann::json& g = json.at("gates").at(0);
  EXPECT_EQ(g.at("workload"), "second");
  EXPECT_TRUE(g.at("variant").is_null());
  EXPECT_EQ(g.at("workload_ran"), false);
  EXPECT_EQ(g.at("explanation"), why);
  EXPECT_EQ(json.at("gates").at(2).at("variant"), "b");

  // The stored record, which the HTML report shows, names no variant either.
  EXPECT_EQ(to_record(r.gates[0]).variant, "");
}

}  // namespace
}  // namespace benchgate::gating
