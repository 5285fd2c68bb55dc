// Change-point detection on seeded synthetic series (issue 17's acceptance): a step is found
// where it is, two steps are both found, a stationary series rarely gives a false change, an
// outlier is not a change, and resuming an analysis gives what a fresh one gives.
#include "orchestrator/changes/change_detection.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace benchgate::changes {
namespace {

// 100 with relative noise `noise` (normal), times (1 + step) from each step's index on.
std::vector<double> series(size_t n, double noise, uint64_t seed,
                           const std::vector<std::pair<size_t, double>>& steps = {}) {
  std::mt19937_64 gen(seed);
  std::normal_distribution<double> normal(0, 1);
  std::vector<double> v(n);
  for (size_t i = 0; i < n; ++i) {
    double level = 100;
    for (const auto& [at, step] : steps) {
      if (i >= at) level *= 1 + step;
    }
    v[i] = level * (1 + noise * normal(gen));
  }
  return v;
}

std::vector<size_t> indices(const std::vector<ChangePoint>& points) {
  std::vector<size_t> out;
  for (const ChangePoint& cp : points) out.push_back(cp.index);
  return out;
}

TEST(ChangeDetection, FivePercentStepAtRun30Of60IsFoundThere) {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    const std::vector<double> v = series(60, 0.01, seed, {{30, 0.05}});
    const std::vector<ChangePoint> found = detect_changes(v, ChangeOptions{});
    ASSERT_EQ(found.size(), 1u) << "seed " << seed;
    const ChangePoint& cp = found[0];
    EXPECT_NEAR(static_cast<double>(cp.index), 30, 1) << "seed " << seed;
    EXPECT_LT(cp.p_value, 0.01);
    EXPECT_NEAR(cp.change, 0.05, 0.01) << "seed " << seed;
    EXPECT_NEAR(cp.median_before, 100, 1);
    EXPECT_NEAR(cp.median_after, 105, 1);
    ASSERT_TRUE(cp.interval_bounded);
    EXPECT_LT(cp.change_low, cp.change);
    EXPECT_GT(cp.change_high, cp.change);
    EXPECT_GT(cp.change_low, 0.03);
  }
}

TEST(ChangeDetection, TwoStepsAreBothFound) {
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    // Up 5% at 40, down 8% at 80: the second change must not hide behind the first.
    const std::vector<double> v = series(120, 0.01, seed, {{40, 0.05}, {80, -0.08}});
    const std::vector<size_t> at = indices(detect_changes(v, ChangeOptions{}));
    ASSERT_EQ(at.size(), 2u) << "seed " << seed;
    EXPECT_NEAR(static_cast<double>(at[0]), 40, 1) << "seed " << seed;
    EXPECT_NEAR(static_cast<double>(at[1]), 80, 1) << "seed " << seed;
  }
}

TEST(ChangeDetection, AChangeLongAfterAnOldOneIsFound) {
  // 300 points, a change at 60 and one at 260: windows keep the new one visible.
  const std::vector<double> v = series(300, 0.01, 3, {{60, -0.1}, {260, 0.04}});
  const std::vector<size_t> at = indices(detect_changes(v, ChangeOptions{}));
  ASSERT_EQ(at.size(), 2u);
  EXPECT_NEAR(static_cast<double>(at[0]), 60, 1);
  EXPECT_NEAR(static_cast<double>(at[1]), 260, 1);
}

TEST(ChangeDetection, StationarySeriesGivesAFalseChangeInAtMostOnePercentOfTrials) {
  ChangeOptions options;
  options.alpha = 0.01;
  options.min_change = 0;  // the statistics alone, not the magnitude rule, must hold it
  int with_a_change = 0;
  for (uint64_t seed = 1000; seed < 1100; ++seed) {
    if (!detect_changes(series(200, 0.01, seed), options).empty()) ++with_a_change;
  }
  EXPECT_LE(with_a_change, 1);
}

TEST(ChangeDetection, ASingleOutlierIsNotAChange) {
  for (size_t at : {0, 1, 2, 15, 30, 57, 58, 59}) {
    for (uint64_t seed = 1; seed <= 5; ++seed) {
      std::vector<double> v = series(60, 0.01, seed);
      v[at] *= 1.3;
      EXPECT_TRUE(detect_changes(v, ChangeOptions{}).empty())
          << "outlier at " << at << " seed " << seed;
      v[at] /= 1.3 * 1.3;
      EXPECT_TRUE(detect_changes(v, ChangeOptions{}).empty())
          << "dip at " << at << " seed " << seed;
    }
  }
}

TEST(ChangeDetection, ChangesBelowTheMinimumAreNotReported) {
  const std::vector<double> v = series(60, 0.002, 5, {{30, 0.02}});
  ChangeOptions options;
  options.min_change = 0.01;
  ASSERT_EQ(indices(detect_changes(v, options)), std::vector<size_t>{30});
  options.min_change = 0.03;
  EXPECT_TRUE(detect_changes(v, options).empty());
}

// A change point's size is gates::relative_change, the one relative change `compare` and the
// gates use: 0 to 0 is no change (+0.00%, not "from 0"), x to 0 is -100%, 0 to x has none.
TEST(ChangeDetection, AChangesSizeIsTheOneRelativeChange) {
  ChangeOptions options;
  options.min_change = 0;  // keep a change point whose median does not move
  // 20 runs that all measured 0, then 20 of -100 and +100 in turn: the spread changed, both
  // medians are 0.
  std::vector<double> v(40, 0);
  for (size_t i = 20; i < 40; ++i) v[i] = i % 2 == 0 ? -100 : 100;
  std::vector<ChangePoint> found = detect_changes(v, options);
  ASSERT_EQ(indices(found), std::vector<size_t>{20});
  EXPECT_EQ(found[0].median_before, 0);
  EXPECT_EQ(found[0].median_after, 0);
  EXPECT_EQ(found[0].change, 0) << "0 to 0 is no change";
  // The default minimum drops it, as any change of the median below 1%.
  EXPECT_TRUE(detect_changes(v, ChangeOptions{}).empty());

  // x to 0: -100%; 0 to x: no relative size, and never below the minimum.
  std::vector<double> down(40, 0), up(40, 0);
  for (size_t i = 0; i < 20; ++i) down[i] = up[20 + i] = 100 + static_cast<double>(i % 3);
  found = detect_changes(down, ChangeOptions{});
  ASSERT_EQ(indices(found), std::vector<size_t>{20});
  EXPECT_EQ(found[0].median_after, 0);
  EXPECT_EQ(found[0].change, -1);
  found = detect_changes(up, ChangeOptions{});
  ASSERT_EQ(indices(found), std::vector<size_t>{20});
  EXPECT_EQ(found[0].median_before, 0);
  EXPECT_TRUE(std::isnan(found[0].change));
}

TEST(ChangeDetection, ResumingFromAPrefixGivesWhatAFreshAnalysisGives) {
  const std::vector<double> v = series(170, 0.01, 11, {{45, 0.06}, {110, -0.05}, {150, 0.1}});
  const ChangeOptions options;
  SplitState state;
  bool have_state = false;
  for (size_t n = 1; n <= v.size(); n += 1 + n % 4) {
    const std::span<const double> prefix(v.data(), n);
    SplitState next;
    const std::vector<size_t> resumed =
        weak_change_points(prefix, options, have_state ? &state : nullptr, &next);
    SplitState fresh_state;
    EXPECT_EQ(resumed, weak_change_points(prefix, options, nullptr, &fresh_state)) << "n " << n;
    EXPECT_EQ(next.resume_start, fresh_state.resume_start) << "n " << n;
    EXPECT_EQ(next.stable_weak, fresh_state.stable_weak) << "n " << n;
    state = next;
    have_state = true;
  }
  EXPECT_EQ(indices(detect_changes(v, options)), (std::vector<size_t>{45, 110, 150}));
}

TEST(ChangeDetection, ResumedChangePointsEqualAFreshAnalysisAtEveryLength) {
  // Five changes over 420 points: early groups become final while later points arrive.
  const std::vector<double> v =
      series(420, 0.01, 23, {{40, 0.05}, {120, -0.07}, {200, 0.06}, {290, -0.05}, {380, 0.08}});
  const ChangeOptions options;
  AnalysisState state;
  bool have_state = false;
  size_t final_seen = 0;
  for (size_t n = 20; n <= v.size(); n += 23) {
    const std::span<const double> prefix(v.data(), n);
    AnalysisState next;
    const std::vector<ChangePoint> resumed =
        detect_changes(prefix, options, have_state ? &state : nullptr, &next);
    const std::vector<ChangePoint> fresh = detect_changes(prefix, options);
    ASSERT_EQ(indices(resumed), indices(fresh)) << "n " << n;
    for (size_t i = 0; i < fresh.size(); ++i) {
      EXPECT_DOUBLE_EQ(resumed[i].p_value, fresh[i].p_value) << "n " << n;
      EXPECT_DOUBLE_EQ(resumed[i].change_low, fresh[i].change_low) << "n " << n;
    }
    final_seen = std::max(final_seen, next.frozen.size());
    state = next;
    have_state = true;
  }
  EXPECT_GE(final_seen, 3u);  // the resumed path did skip work
  EXPECT_EQ(indices(detect_changes(v, options)), (std::vector<size_t>{40, 120, 200, 290, 380}));
}

TEST(ChangeDetection, SameSeedSameAnswerAndShortSeriesHaveNone) {
  const std::vector<double> v = series(80, 0.02, 9, {{40, 0.04}});
  EXPECT_EQ(indices(detect_changes(v, ChangeOptions{})),
            indices(detect_changes(v, ChangeOptions{})));
  EXPECT_TRUE(detect_changes(std::vector<double>{}, ChangeOptions{}).empty());
  EXPECT_TRUE(detect_changes(std::vector<double>{1, 2, 3, 10, 11}, ChangeOptions{}).empty());
}

}  // namespace
}  // namespace benchgate::changes
