// Opening the store: abandoned runs, and clear errors for paths that cannot work.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include "orchestrator/store/sqlite.h"
#include "orchestrator/store/store.h"
#include "store_test_support.h"

namespace benchgate::store {
namespace {

using testing::TempDir;

std::string run_status(Store& store, int64_t run) {
  auto detail = store.get_run(run);
  EXPECT_TRUE(detail.ok());
  return detail ? detail->run.status : "";
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(StoreOpen, ARunLeftRunningIsMarkedAbandonedByTheNextOpen) {
  TempDir dir;
  int64_t run = 0;
  {
    auto first = Store::open(dir.file("b.db"));
    ASSERT_TRUE(first.ok()) << first.message();
    auto id = (*first)->begin_run(testing::test_run_info());
    ASSERT_TRUE(id.ok());
    run = *id;
    ASSERT_TRUE((*first)->store_workload(run, testing::test_workload()).ok());
    // Closed without finish_run, as a killed orchestrator leaves it.
  }
  auto second = Store::open(dir.file("b.db"));
  ASSERT_TRUE(second.ok()) << second.message();
  EXPECT_EQ((*second)->abandoned_runs(), std::vector<int64_t>{run});
  EXPECT_EQ(run_status(**second, run), "abandoned");
  auto detail = (*second)->get_run(run);
  ASSERT_TRUE(detail.ok());
  EXPECT_TRUE(detail->run.finished_at_ns.has_value());
  EXPECT_EQ(detail->workloads.size(), 1u);
  EXPECT_FALSE((*second)->finish_run(run, "ok", 0).ok());
}

TEST(StoreOpen, ARunOfAProcessThatIsGoneIsAbandoned) {
  TempDir dir;
  auto first = Store::open(dir.file("b.db"));
  ASSERT_TRUE(first.ok());
  auto run = (*first)->begin_run(testing::test_run_info());
  ASSERT_TRUE(run.ok());
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  auto stmt = (*first)->database().prepare("UPDATE runs SET owner = ?1 WHERE id = ?2");
  ASSERT_TRUE(stmt.ok());
  stmt->bind(1, std::string(host) + "/999999999/12345/1").bind(2, *run);
  ASSERT_TRUE(stmt->run().ok());
  auto second = Store::open(dir.file("b.db"));
  ASSERT_TRUE(second.ok());
  EXPECT_EQ((*second)->abandoned_runs(), std::vector<int64_t>{*run});
}

// Fields 3 (state) and 22 (start ticks) of /proc/PID/stat.
std::pair<std::string, std::string> state_and_start(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(in, line);
  std::istringstream rest(line.substr(line.rfind(')') + 1));
  std::string field, state;
  for (int i = 3; i <= 22 && rest >> field; ++i) {
    if (i == 3) state = field;
  }
  return {state, field};
}

TEST(StoreOpen, ARunOfAProcessThatExitedButIsNotReapedIsAbandoned) {
  // A zombie keeps its pid and start time until its parent reaps it (a serve killed by SIGKILL
  // under a parent that reaps late): its run is as abandoned as a reaped process's.
  TempDir dir;
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    pause();
    _exit(0);
  }
  const auto [state, start] = state_and_start(child);
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  int64_t run = 0;
  {
    auto first = Store::open(dir.file("b.db"));
    ASSERT_TRUE(first.ok());
    auto id = (*first)->begin_run(testing::test_run_info());
    ASSERT_TRUE(id.ok());
    run = *id;
    auto stmt = (*first)->database().prepare("UPDATE runs SET owner = ?1 WHERE id = ?2");
    ASSERT_TRUE(stmt.ok());
    stmt->bind(1, std::string(host) + "/" + std::to_string(child) + "/" + start + "/1")
        .bind(2, run);
    ASSERT_TRUE(stmt->run().ok());
  }
  {
    // While the child runs, its run is its own.
    auto alive = Store::open(dir.file("b.db"));
    ASSERT_TRUE(alive.ok());
    EXPECT_TRUE((*alive)->abandoned_runs().empty());
    EXPECT_EQ(run_status(**alive, run), "running");
  }
  kill(child, SIGKILL);
  for (int i = 0; i < 500 && state_and_start(child).first != "Z"; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_EQ(state_and_start(child).first, "Z");
  auto after = Store::open(dir.file("b.db"));
  waitpid(child, nullptr, 0);
  ASSERT_TRUE(after.ok());
  EXPECT_EQ((*after)->abandoned_runs(), std::vector<int64_t>{run});
  EXPECT_EQ(run_status(**after, run), "abandoned");
}

TEST(StoreOpen, ARunOfAStoreStillOpenIsNotAbandoned) {
  TempDir dir;
  auto first = Store::open(dir.file("b.db"));
  ASSERT_TRUE(first.ok());
  auto run = (*first)->begin_run(testing::test_run_info());
  ASSERT_TRUE(run.ok());
  auto second = Store::open(dir.file("b.db"));
  ASSERT_TRUE(second.ok()) << second.message();
  EXPECT_TRUE((*second)->abandoned_runs().empty());
  EXPECT_EQ(run_status(**second, *run), "running");
  EXPECT_TRUE((*first)->finish_run(*run, "ok", 0).ok());
  EXPECT_EQ(run_status(**second, *run), "ok");
}

TEST(StoreOpen, AMissingFolderIsNamedInTheError) {
  TempDir dir;
  auto store = Store::open(dir.file("no/such/folder/b.db"));
  ASSERT_FALSE(store.ok());
  EXPECT_TRUE(contains(store.message(), "does not exist")) << store.message();
  EXPECT_TRUE(contains(store.message(), "no/such/folder")) << store.message();
}

TEST(StoreOpen, AFileThatIsNotSqliteIsRefusedAndLeftUnchanged) {
  TempDir dir;
  const std::string path = dir.file("notes.txt");
  const std::string text(4096, 'x');
  std::ofstream(path) << text;
  auto store = Store::open(path);
  ASSERT_FALSE(store.ok());
  EXPECT_TRUE(contains(store.message(), "not a SQLite database")) << store.message();
  std::ifstream in(path);
  std::string back((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(back, text);
}

TEST(StoreOpen, AFolderGivenAsTheDatabaseIsRefused) {
  TempDir dir;
  auto store = Store::open(dir.path());
  ASSERT_FALSE(store.ok());
  EXPECT_TRUE(contains(store.message(), "folder")) << store.message();
}

TEST(StoreOpen, AReadOnlyFileIsRefusedWithAClearError) {
  if (geteuid() == 0) GTEST_SKIP() << "root writes read-only files";
  TempDir dir;
  const std::string path = dir.file("ro.db");
  { ASSERT_TRUE(Store::open(path).ok()); }
  ASSERT_EQ(chmod(path.c_str(), 0444), 0);
  auto store = Store::open(path);
  ASSERT_FALSE(store.ok());
  EXPECT_TRUE(contains(store.message(), "read-only")) << store.message();
}

TEST(StoreOpen, AReadOnlyFolderIsRefusedWithAClearError) {
  if (geteuid() == 0) GTEST_SKIP() << "root writes read-only folders";
  TempDir dir;
  const std::string folder = dir.file("ro");
  ASSERT_EQ(mkdir(folder.c_str(), 0555), 0);
  auto store = Store::open(folder + "/b.db");
  ASSERT_FALSE(store.ok());
  EXPECT_TRUE(contains(store.message(), "not writable")) << store.message();
  chmod(folder.c_str(), 0755);
}

TEST(StoreOpen, AFolderWhereNoFileCanBeCreatedGivesAnErrorNamingThePath) {
  // /proc refuses new files even to root.
  auto store = Store::open("/proc/benchgate-store-test.db");
  ASSERT_FALSE(store.ok());
  EXPECT_TRUE(contains(store.message(), "/proc/benchgate-store-test.db")) << store.message();
}

TEST(StoreOpen, ADatabaseLockedByAnotherWriterFailsAfterTheBusyTimeout) {
  TempDir dir;
  const std::string path = dir.file("locked.db");
  auto other = sqlite::Database::open(path);
  ASSERT_TRUE(other.ok());
  ASSERT_TRUE((*other)->exec("PRAGMA journal_mode = WAL").ok());
  ASSERT_TRUE((*other)->exec("BEGIN IMMEDIATE").ok());
  auto store = Store::open(path, OpenOptions{.busy_timeout_ms = 100});
  ASSERT_FALSE(store.ok());
  EXPECT_TRUE(contains(store.message(),
                       "is locked by another process (gave up after waiting 100 ms for it; "
                       "--db-busy-timeout sets the wait)"))
      << store.message();
  ASSERT_TRUE((*other)->exec("ROLLBACK").ok());
  EXPECT_TRUE(Store::open(path, OpenOptions{.busy_timeout_ms = 100}).ok());
}

TEST(StoreOpen, AWriteWhileAnotherWriterHoldsTheLockFailsAfterTheBusyTimeout) {
  TempDir dir;
  const std::string path = dir.file("locked.db");
  auto store = Store::open(path, OpenOptions{.busy_timeout_ms = 100});
  ASSERT_TRUE(store.ok());
  auto other = sqlite::Database::open(path);
  ASSERT_TRUE(other.ok());
  ASSERT_TRUE((*other)->exec("BEGIN IMMEDIATE").ok());
  auto run = (*store)->begin_run(testing::test_run_info());
  ASSERT_FALSE(run.ok());
  EXPECT_TRUE(contains(run.message(),
                       "the database is locked by another process (gave up after "
                       "waiting 100 ms for it; --db-busy-timeout sets the wait)"))
      << run.message();
  ASSERT_TRUE((*other)->exec("ROLLBACK").ok());
  EXPECT_TRUE((*store)->begin_run(testing::test_run_info()).ok());
}

}  // namespace
}  // namespace benchgate::store
