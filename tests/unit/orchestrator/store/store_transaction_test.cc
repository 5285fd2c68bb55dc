// One transaction per workload: a failure part-way through leaves nothing of that workload.
#include <gtest/gtest.h>

#include "orchestrator/store/sqlite.h"
#include "orchestrator/store/store.h"
#include "store_test_support.h"

namespace benchgate::store {
namespace {

int64_t count(Store& store, const char* sql) {
  auto stmt = store.database().prepare(sql);
  EXPECT_TRUE(stmt.ok());
  EXPECT_TRUE(*stmt->step());
  return stmt->int64(0);
}

TEST(StoreTransaction, AFailureMidWorkloadLeavesNothingOfIt) {
  testing::TempDir dir;
  auto store = Store::open(dir.file("t.db"));
  ASSERT_TRUE(store.ok()) << store.message();
  Store& s = **store;
  auto run = s.begin_run(testing::test_run_info());
  ASSERT_TRUE(run.ok());

  // The third repetition repeats index 1: its insert fails after the workload row, two
  // repetitions and their router metrics were written.
  results::WorkloadResult broken = testing::test_workload("http_hello", 3);
  broken.repetitions[2].index = 1;
  auto stored = s.store_workload(*run, broken);
  ASSERT_FALSE(stored.ok());
  EXPECT_NE(stored.message().find("http_hello"), std::string::npos) << stored.message();
  EXPECT_EQ(count(s, "SELECT count(*) FROM workloads"), 0);
  EXPECT_EQ(count(s, "SELECT count(*) FROM repetitions"), 0);
  EXPECT_EQ(count(s, "SELECT count(*) FROM router_metrics"), 0);

  // The store is still usable, and the same workload stores completely once valid.
  ASSERT_TRUE(s.store_workload(*run, testing::test_workload("http_hello", 3)).ok());
  EXPECT_EQ(count(s, "SELECT count(*) FROM workloads"), 1);
  EXPECT_EQ(count(s, "SELECT count(*) FROM repetitions"), 3);
  EXPECT_EQ(count(s, "SELECT count(*) FROM router_metrics"), 6);
}

// A run's end refused for another reason than a full disk (here a trigger of the test refuses
// status 'ok'; in the field a lock released meanwhile or an I/O error that passed): the run is
// ended 'failed' with exit code 3 and the reason, not left 'running' for a later open to call
// 'abandoned', and the caller still learns that its end was refused.
TEST(StoreTransaction, ARunWhoseEndIsRefusedIsStoredFailedWithTheReason) {
  testing::TempDir dir;
  auto store = Store::open(dir.file("t.db"));
  ASSERT_TRUE(store.ok()) << store.message();
  Store& s = **store;
  auto run = s.begin_run(testing::test_run_info());
  ASSERT_TRUE(run.ok());
  ASSERT_TRUE(s.database()
                  .exec("CREATE TEMP TRIGGER refuse_ok BEFORE UPDATE OF status ON runs "
                        "WHEN NEW.status = 'ok' BEGIN SELECT RAISE(ABORT, 'refused by the test'); "
                        "END")
                  .ok());

  auto finished = s.finish_run(*run, "ok", 0, "", 3);
  ASSERT_FALSE(finished.ok());
  EXPECT_NE(finished.message().find("refused by the test"), std::string::npos)
      << finished.message();
  EXPECT_NE(finished.message().find("is stored as failed with exit code 3"), std::string::npos)
      << finished.message();
  auto detail = s.get_run(*run);
  ASSERT_TRUE(detail.ok()) << detail.message();
  EXPECT_EQ(detail->run.status, "failed");
  EXPECT_EQ(detail->run.exit_code, 3);
  EXPECT_EQ(detail->run.error.rfind("cannot finish run: ", 0), 0u) << detail->run.error;
  EXPECT_NE(detail->run.error.find("refused by the test"), std::string::npos) << detail->run.error;
}

TEST(StoreTransaction, StoringTheSameWorkloadTwiceInARunIsRefused) {
  testing::TempDir dir;
  auto store = Store::open(dir.file("t.db"));
  ASSERT_TRUE(store.ok());
  auto run = (*store)->begin_run(testing::test_run_info());
  ASSERT_TRUE(run.ok());
  ASSERT_TRUE((*store)->store_workload(*run, testing::test_workload()).ok());
  EXPECT_FALSE((*store)->store_workload(*run, testing::test_workload()).ok());
  EXPECT_EQ(count(**store, "SELECT count(*) FROM repetitions"), 3);
}

TEST(StoreTransaction, TheIntegrityCheckPassesAfterWritesAndFailures) {
  testing::TempDir dir;
  auto store = Store::open(dir.file("t.db"));
  ASSERT_TRUE(store.ok());
  auto run = (*store)->begin_run(testing::test_run_info());
  ASSERT_TRUE(run.ok());
  results::WorkloadResult broken = testing::test_workload("a", 2);
  broken.repetitions[1].index = 0;
  EXPECT_FALSE((*store)->store_workload(*run, broken).ok());
  ASSERT_TRUE((*store)->store_workload(*run, testing::test_workload("b", 2)).ok());
  ASSERT_TRUE((*store)->finish_run(*run, "ok", 0).ok());
  auto stmt = (*store)->database().prepare("PRAGMA integrity_check");
  ASSERT_TRUE(stmt.ok());
  ASSERT_TRUE(*stmt->step());
  EXPECT_EQ(stmt->text(0), "ok");
  auto fk = (*store)->database().prepare("PRAGMA foreign_key_check");
  ASSERT_TRUE(fk.ok());
  EXPECT_FALSE(*fk->step());
}

}  // namespace
}  // namespace benchgate::store
