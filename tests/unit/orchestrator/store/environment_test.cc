// Testbed fingerprint, workload identity and git revision detection.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "orchestrator/store/git_revision.h"
#include "orchestrator/store/testbed.h"
#include "orchestrator/store/workload_params.h"
#include "store_test_support.h"

namespace benchgate::store {
namespace {

TEST(Testbed, DetectionReadsTheRunningMachine) {
  const Testbed t = detect_testbed("test-compiler", "-O2");
  EXPECT_FALSE(t.host.empty());
  EXPECT_FALSE(t.cpu_model.empty());
  EXPECT_GT(t.cores, 0u);
  EXPECT_NE(t.kernel.find("Linux"), std::string::npos) << t.kernel;
  EXPECT_FALSE(t.governor.empty());
  EXPECT_EQ(t.compiler, "test-compiler");
  EXPECT_EQ(t.build_flags, "-O2");
  EXPECT_FALSE(default_compiler().empty());
}

TEST(Testbed, BenchgateTestbedHostReplacesTheHostName) {
  const Testbed real = detect_testbed("c", "f");
  ::setenv("BENCHGATE_TESTBED_HOST", "ci-runner-pool", 1);
  const Testbed named = detect_testbed("c", "f");
  ::unsetenv("BENCHGATE_TESTBED_HOST");
  EXPECT_EQ(named.host, "ci-runner-pool");
  EXPECT_NE(named.fingerprint(), real.fingerprint());
  EXPECT_EQ(detect_testbed("c", "f").fingerprint(), real.fingerprint());
}

TEST(Testbed, TheFingerprintIsStableAndChangesWithAnyField) {
  const Testbed a = testing::test_testbed();
  EXPECT_EQ(a.fingerprint(), testing::test_testbed().fingerprint());
  EXPECT_EQ(a.fingerprint().size(), 64u);
  Testbed b = a;
  b.build_flags = "-O2";
  EXPECT_NE(a.fingerprint(), b.fingerprint());
  b = a;
  b.governor = "powersave";
  EXPECT_NE(a.fingerprint(), b.fingerprint());
  b = a;
  b.cores = 16;
  EXPECT_NE(a.fingerprint(), b.fingerprint());
}

TEST(WorkloadParams, AChangedDefinitionChangesTheHashButItsSourcePositionDoesNot) {
  const scenario::Workload a = testing::test_workload_spec();
  scenario::Workload moved = a;
  moved.where = {"other.toml", 42, 7};
  EXPECT_EQ(workload_params_hash(a), workload_params_hash(moved));
  scenario::Workload changed = a;
  changed.connections = 33;
  EXPECT_NE(workload_params_hash(a), workload_params_hash(changed));
  changed = a;
  changed.http.headers["x-test"] = "1";
  EXPECT_NE(workload_params_hash(a), workload_params_hash(changed));
  changed = a;
  changed.http.expect_status = 200;
  EXPECT_NE(workload_params_hash(a), workload_params_hash(changed));
}

TEST(WorkloadParams, TheJsonIsCanonicalWithSortedKeys) {
  const std::string json = workload_params_json(testing::test_workload_spec());
  EXPECT_NE(json.find("\"connections\":32"), std::string::npos) << json;
  EXPECT_LT(json.find("\"connections\""), json.find("\"duration_ns\""));
  EXPECT_EQ(json.find(' '), std::string::npos);
  EXPECT_EQ(json.find("where"), std::string::npos);
}

// The hash is the series key of every stored run: a change of the hashed text would start a
// new series for every existing workload and cut it off from its baselines. These are the
// hashes existing databases hold for two known definitions; a change here must be deliberate
// and said in the commit and docs/GATES.md.
TEST(WorkloadParams, TheHashOfAKnownDefinitionStaysWhatExistingHistoryHolds) {
  EXPECT_EQ(workload_params_hash(testing::test_workload_spec()),
            "488d3a28b870fce5482166f96a0b2d7084d189c84c201484075b95c7e6c569a3");
  scenario::Workload wamp = testing::test_workload_spec("wamp_echo");
  wamp.protocol = scenario::Protocol::kWampRpc;
  wamp.wamp.transport = "rawsocket";
  wamp.wamp.serializer = "msgpack";
  wamp.wamp.request_bytes = 64;
  // A WAMP workload's stored text keeps the http block it always had (the JSON report leaves
  // it out): dropping it would change this hash.
  EXPECT_NE(workload_params_json(wamp).find("\"http\":{"), std::string::npos);
  EXPECT_EQ(workload_params_hash(wamp),
            "d477d26a0d6a5428e23063eed980339aba5b28d1ac94df076731dea9e85f3f8b");
}

TEST(GitRevision, AWorkTreeGivesItsCommitAndBranch) {
  testing::TempDir dir;
  const std::string repo = dir.file("repo");
  std::filesystem::create_directory(repo);
  // A fixed path made by the test itself; no user text reaches this shell.
  const std::string setup = "cd '" + repo +
                            "' && git init -q -b trunk && git -c user.name=t -c "
                            "user.email=t@example.com commit -q --allow-empty -m init";
  if (std::system(setup.c_str()) != 0) GTEST_SKIP() << "git is not usable here";
  auto rev = detect_git_revision(repo);
  ASSERT_TRUE(rev.has_value());
  EXPECT_EQ(rev->commit.size(), 40u);
  EXPECT_EQ(rev->branch, "trunk");
}

TEST(GitRevision, ATreeWithUncommittedChangesIsStoredAsItsCommitMarkedDirty) {
  testing::TempDir dir;
  const std::string repo = dir.file("repo");
  std::filesystem::create_directory(repo);
  // A fixed path made by the test itself; no user text reaches this shell.
  const std::string setup = "cd '" + repo +
                            "' && git init -q -b trunk && echo one > tracked && git add tracked "
                            "&& git -c user.name=t -c user.email=t@example.com commit -q -m init";
  if (std::system(setup.c_str()) != 0) GTEST_SKIP() << "git is not usable here";
  auto clean = detect_git_revision(repo);
  ASSERT_TRUE(clean.has_value());
  ASSERT_EQ(clean->commit.size(), 40u);
  // A file git does not track leaves the tree clean, as for `git describe --dirty`.
  ASSERT_EQ(std::system(("cd '" + repo + "' && echo x > untracked").c_str()), 0);
  EXPECT_EQ(detect_git_revision(repo)->commit, clean->commit);
  // A change to a tracked file, staged or not, is not the commit.
  ASSERT_EQ(std::system(("cd '" + repo + "' && echo two > tracked").c_str()), 0);
  EXPECT_EQ(detect_git_revision(repo)->commit, clean->commit + "-dirty");
  ASSERT_EQ(std::system(("cd '" + repo + "' && git add tracked").c_str()), 0);
  EXPECT_EQ(detect_git_revision(repo)->commit, clean->commit + "-dirty");
  EXPECT_EQ(detect_git_revision(repo)->branch, "trunk");
}

// What a local run and `run --server` both store: each of --commit and --branch given wins on
// its own, the other comes from the work tree; outside one, what was given (or nothing).
TEST(GitRevision, EachValueGivenWinsAndAnEmptyOneComesFromTheWorkTree) {
  testing::TempDir dir;
  const std::string repo = dir.file("repo");
  std::filesystem::create_directory(repo);
  // A fixed path made by the test itself; no user text reaches this shell.
  const std::string setup = "cd '" + repo +
                            "' && git init -q -b trunk && git -c user.name=t -c "
                            "user.email=t@example.com commit -q --allow-empty -m init";
  if (std::system(setup.c_str()) != 0) GTEST_SKIP() << "git is not usable here";
  const std::string head = detect_git_revision(repo)->commit;
  const GitRevision detected = given_or_detected({}, repo);
  EXPECT_EQ(detected.commit, head);
  EXPECT_EQ(detected.branch, "trunk");
  const GitRevision commit_given = given_or_detected({"c0ffee", ""}, repo);
  EXPECT_EQ(commit_given.commit, "c0ffee");
  EXPECT_EQ(commit_given.branch, "trunk");
  const GitRevision branch_given = given_or_detected({"", "given"}, repo);
  EXPECT_EQ(branch_given.commit, head);
  EXPECT_EQ(branch_given.branch, "given");
  const GitRevision outside = given_or_detected({"", "given"}, dir.file("missing"));
  EXPECT_EQ(outside.commit, "");
  EXPECT_EQ(outside.branch, "given");
}

TEST(GitRevision, AFolderOutsideAWorkTreeGivesNothingAndItsNameIsNeverRunByAShell) {
  testing::TempDir dir;
  const std::string odd = dir.file("not a repo; touch pwned $(touch pwned2)");
  std::filesystem::create_directory(odd);
  EXPECT_FALSE(detect_git_revision(odd).has_value());
  EXPECT_FALSE(std::filesystem::exists(dir.file("pwned")));
  EXPECT_FALSE(std::filesystem::exists("pwned"));
  EXPECT_FALSE(std::filesystem::exists("pwned2"));
  EXPECT_FALSE(detect_git_revision(dir.file("missing")).has_value());
}

}  // namespace
}  // namespace benchgate::store
