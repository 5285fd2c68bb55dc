// compare's note on the routers two runs measured (docs/MEASUREMENT.md, "Measured binaries"):
// one given by --router-bin or $BENCHGATE_ROUTER_BIN against the bundled one, or two different
// files under the same commit; none for runs that recorded no binary or the same router.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "orchestrator/history/run_comparison.h"

namespace benchgate::history {
namespace {

store::MeasuredBinary router(const std::string& path, const std::string& origin,
                             std::optional<std::string> build_id,
                             std::optional<std::string> sha256 = std::nullopt) {
  return {"router", path, origin, std::move(build_id), std::move(sha256)};
}

RunSamples run(int64_t id, const std::string& commit, std::vector<store::MeasuredBinary> binaries) {
  RunSamples r;
  r.run_id = id;
  r.testbed_fingerprint = "tb";
  r.testbed_host = "host";
  r.scenario = "s";
  r.commit = commit;
  r.binaries = std::move(binaries);
  return r;
}

std::vector<std::string> notes_of(const RunComparison& c) {
  return nlohmann::json::parse(render_comparison_json(c))["notes"].get<std::vector<std::string>>();
}

const store::MeasuredBinary kBundled = router("/b/router", "next to the orchestrator", "aa11");
const store::MeasuredBinary kGiven = router("/c/router", "--router-bin", "bb22");

TEST(RouterNote, ARouterGivenByTheFlagAgainstTheBundledOneIsNotedWithTheSharedCommit) {
  const RunComparison c = compare_runs(run(1, "abc", {kBundled}), run(2, "abc", {kGiven}));
  const std::vector<std::string> notes = notes_of(c);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0],
            "run 2 measured a router given by --router-bin (/c/router, build-id bb22), run 1 the "
            "bundled router (/b/router, build-id aa11); both carry commit abc, which is the "
            "working folder's, not necessarily the router's");
  EXPECT_NE(render_comparison(c).find("note: " + notes[0] + "\n"), std::string::npos);
  // Whichever run it is, and whatever the commits.
  const RunComparison other =
      compare_runs(run(1, "abc", {router("/c/router", "$BENCHGATE_ROUTER_BIN", "aa11")}),
                   run(2, "def", {kBundled}));
  ASSERT_EQ(notes_of(other).size(), 1u);
  EXPECT_EQ(notes_of(other)[0],
            "run 1 measured a router given by $BENCHGATE_ROUTER_BIN (/c/router, build-id aa11), "
            "run 2 the bundled router (/b/router, build-id aa11); the two are one build by their "
            "identity");
}

TEST(RouterNote, TwoDifferentRoutersUnderTheSameCommitAreNoted) {
  const RunComparison c =
      compare_runs(run(1, "abc", {kGiven}),
                   run(2, "abc", {router("/d/router", "--router-bin", std::nullopt, "cc33")}));
  const std::vector<std::string> notes = notes_of(c);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0],
            "runs 1 and 2 carry the same commit abc but measured different router binaries (run "
            "1: /c/router, build-id bb22; run 2: /d/router, sha256 cc33); part of any difference "
            "may be the router");
}

TEST(RouterNote, NothingIsNotedForTheSameRouterDifferentCommitsOrRunsWithoutBinaries) {
  // The same file at another path, both bundled.
  EXPECT_TRUE(notes_of(compare_runs(run(1, "abc", {kBundled}),
                                    run(2, "abc", {router("/e/router", "PATH", "aa11")})))
                  .empty());
  // Two bundled builds of two commits: what the commits say.
  EXPECT_TRUE(notes_of(compare_runs(run(1, "abc", {kBundled}),
                                    run(2, "def", {router("/b/router", "PATH", "ff00")})))
                  .empty());
  // A run stored before binaries were recorded, or one whose router was not read.
  EXPECT_TRUE(notes_of(compare_runs(run(1, "abc", {}), run(2, "abc", {kGiven}))).empty());
  EXPECT_TRUE(notes_of(compare_runs(run(1, "abc", {router("/x", "PATH", std::nullopt)}),
                                    run(2, "abc", {kBundled})))
                  .empty());
}

TEST(RouterNote, TheJsonNamesEachRunsCommitAndBinaries) {
  const nlohmann::json doc = nlohmann::json::parse(
      render_comparison_json(compare_runs(run(1, "abc", {kBundled}), run(2, "abc", {kGiven}))));
  EXPECT_EQ(doc["run_a"]["commit"], "abc");
  ASSERT_EQ(doc["run_b"]["binaries"].size(), 1u);
  const nlohmann::json& b = doc["run_b"]["binaries"][0];
  EXPECT_EQ(b["role"], "router");
  EXPECT_EQ(b["path"], "/c/router");
  EXPECT_EQ(b["origin"], "--router-bin");
  EXPECT_EQ(b["bundled"], false);
  EXPECT_EQ(b["build_id"], "bb22");
  EXPECT_TRUE(b["sha256"].is_null());
  EXPECT_EQ(doc["run_a"]["binaries"][0]["bundled"], true);
}

}  // namespace
}  // namespace benchgate::history
