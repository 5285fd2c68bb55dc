// Which windows a paired gate pairs (docs/GATES.md, "Paired gates"): the two variants' windows
// of one repetition, by the repetition's number, whatever each variant left out.
#include <gtest/gtest.h>

#include <set>

#include "orchestrator/gating/run_gates.h"

namespace benchgate::gating {
namespace {

// Six repetitions whose latency doubles from one to the next (the machine slows down through
// the run, as both variants see it); the repetitions in `no_success` completed nothing, so
// they have no latency to measure and are left out of the variant's values.
results::WorkloadResult variant(const std::string& name, const std::set<uint32_t>& no_success) {
  results::WorkloadResult w;
  w.spec.name = "hello";
  w.variant = name;
  for (uint32_t i = 0; i < 6; ++i) {
    results::Repetition rep;
    rep.index = i;
    rep.duration_ns = 1'000'000'000;
    rep.in_window = true;
    rep.successes = no_success.count(i) ? 0 : 1000;
    rep.window_successes = rep.successes;
    rep.operations = 1000;
    if (rep.successes > 0) rep.latency.record_n(100'000LL << i, 1000);
    w.latency.add(rep.latency);
    w.repetitions.push_back(rep);
  }
  return w;
}

// Both variants have five values; paired by position, candidate's repetitions 3 to 5 met the
// baseline's 2 to 4 (each half as slow) and an equal candidate failed by twice the latency.
TEST(PairedRepetitions, ARepetitionSkippedInOneVariantDropsItsPairAndShiftsNoOther) {
  const results::WorkloadResult candidate = variant("candidate", {1});
  const results::WorkloadResult baseline = variant("baseline", {4});
  scenario::Gate gate;
  gate.workload = "hello";
  gate.variant = "candidate";
  gate.against = "baseline";
  gate.metric = "latency.p99";
  gate.paired_test = scenario::PairedTest::kT;
  gate.max_regression = 0.05;
  auto evaluated =
      evaluate_gates({gate}, {values_of(candidate), values_of(baseline)}, GateContext{});

  ASSERT_EQ(evaluated.size(), 1u);
  const gates::GateOutcome& o = evaluated[0].outcome;
  EXPECT_EQ(o.verdict, gates::Verdict::kPass) << o.explanation;
  EXPECT_EQ(o.pairs, 4u);
  EXPECT_EQ(o.unpaired, (std::vector<uint32_t>{1, 4}));
  ASSERT_TRUE(o.effect.has_value());
  EXPECT_EQ(*o.effect, 0.0);
  EXPECT_NE(o.explanation.find("(4 pairs of adjacent windows; repetitions 2 and 5 left out: one "
                               "variant had nothing to measure in it)"),
            std::string::npos)
      << o.explanation;
}

TEST(PairedRepetitions, NoRepetitionMeasuredByBothVariantsIsAnError) {
  // One value each, of different repetitions: by position they made one pair.
  const results::WorkloadResult candidate = variant("candidate", {0, 1, 2, 3, 4});
  const results::WorkloadResult baseline = variant("baseline", {1, 2, 3, 4, 5});
  scenario::Gate gate;
  gate.workload = "hello";
  gate.variant = "candidate";
  gate.against = "baseline";
  gate.metric = "latency.p99";
  gate.max_regression = 0.05;
  auto evaluated =
      evaluate_gates({gate}, {values_of(candidate), values_of(baseline)}, GateContext{});

  ASSERT_EQ(evaluated.size(), 1u);
  EXPECT_EQ(evaluated[0].outcome.verdict, gates::Verdict::kError);
  EXPECT_EQ(evaluated[0].outcome.explanation,
            "no repetition measured latency.p99 in both variants: nothing to pair");
}

}  // namespace
}  // namespace benchgate::gating
