// The process tree of a system under test from /proc: which processes belong to it and what
// their CPU and RSS sum to, on a /proc written by the test (exact figures), and on a real
// forked tree (membership only).
#include "common/process/process_tree.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

namespace benchgate {
namespace {

namespace fs = std::filesystem;

class FakeProc : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "benchgate-proc-test-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    ticks_ = ::sysconf(_SC_CLK_TCK);
    page_ = ::sysconf(_SC_PAGESIZE);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // A process with CPU in clock ticks (own, waited-for children) and RSS in pages.
  void add(pid_t pid, const std::string& comm, char state, pid_t ppid, pid_t pgid, int64_t utime,
           int64_t stime, int64_t cutime, int64_t cstime, uint64_t rss_pages) {
    const fs::path p = dir_ / std::to_string(pid);
    fs::create_directories(p);
    // Fields 1..17 as the kernel writes them, then a few more that are ignored.
    std::ofstream(p / "stat") << pid << " (" << comm << ") " << state << " " << ppid << " " << pgid
                              << " " << pgid << " 0 -1 4194560 10 0 0 0 " << utime << " " << stime
                              << " " << cutime << " " << cstime << " 20 0 1 0 100\n";
    std::ofstream(p / "statm") << rss_pages * 3 << " " << rss_pages << " 0 0 0 0 0\n";
  }
  int64_t ns(int64_t ticks) const { return ticks * 1'000'000'000 / ticks_; }

  fs::path dir_;
  int64_t ticks_ = 100;
  uint64_t page_ = 4096;
};

std::vector<pid_t> pids(const std::vector<ProcessInfo>& tree) {
  std::vector<pid_t> out;
  for (const auto& p : tree) out.push_back(p.pid);
  return out;
}

TEST_F(FakeProc, ReadsTheFieldsAfterACommandNameWithSpacesAndParentheses) {
  add(10, "nginx: worker (x) y", 'S', 9, 9, 3, 4, 5, 6, 7);
  auto info = read_process(10, dir_);
  ASSERT_TRUE(info.has_value());
  EXPECT_EQ(info->ppid, 9);
  EXPECT_EQ(info->pgid, 9);
  EXPECT_EQ(info->state, 'S');
  EXPECT_EQ(info->cpu_ns, ns(3 + 4));
  EXPECT_EQ(info->waited_children_cpu_ns, ns(5 + 6));
  EXPECT_EQ(info->rss_bytes, 7 * page_);
  EXPECT_FALSE(read_process(11, dir_).has_value());
}

TEST_F(FakeProc, TheTreeIsRootItsDescendantsAndItsGroup) {
  add(1, "init", 'S', 0, 1, 0, 0, 0, 0, 1);
  add(100, "sh", 'S', 50, 100, 1, 1, 2, 0, 10);       // spawned: leads group 100
  add(101, "nginx", 'S', 100, 100, 10, 5, 0, 0, 20);  // master
  add(102, "nginx: worker", 'R', 101, 100, 300, 100, 0, 0, 30);
  add(103, "nginx: worker", 'S', 50, 100, 7, 0, 0, 0, 40);  // adopted by the orchestrator (50)
  add(104, "daemon", 'S', 101, 104, 1, 0, 0, 0, 50);        // left the group, parent in tree
  add(105, "helper", 'Z', 104, 104, 2, 0, 0, 0, 0);         // a zombie below it
  add(200, "other", 'S', 1, 200, 999, 999, 0, 0, 999);      // not ours
  add(50, "orchestrator", 'S', 1, 50, 888, 888, 0, 0, 888);
  auto tree = process_tree(list_processes(dir_), 100);
  auto members = pids(tree);
  ASSERT_FALSE(members.empty());
  EXPECT_EQ(members.front(), 100);
  std::sort(members.begin(), members.end());
  EXPECT_EQ(members, (std::vector<pid_t>{100, 101, 102, 103, 104, 105}));

  auto usage = process_tree_usage(100, dir_);
  ASSERT_TRUE(usage.has_value());
  EXPECT_EQ(usage->processes, 6u);
  EXPECT_EQ(usage->cpu_ns, ns(1 + 1 + 2) + ns(15) + ns(400) + ns(7) + ns(1) + ns(2));
  EXPECT_EQ(usage->rss_bytes, (10 + 20 + 30 + 40 + 50) * page_);
}

TEST_F(FakeProc, AGroupCountsOnlyWhenRootLeadsIt) {
  add(300, "child", 'S', 50, 50, 1, 0, 0, 0, 1);  // in the orchestrator's group
  add(50, "orchestrator", 'S', 1, 50, 888, 888, 0, 0, 888);
  add(301, "sibling", 'S', 50, 50, 1, 0, 0, 0, 1);
  EXPECT_EQ(pids(process_tree(list_processes(dir_), 300)), (std::vector<pid_t>{300}));
}

TEST_F(FakeProc, AGoneRootHasNoTree) {
  add(100, "sh", 'S', 1, 100, 1, 1, 0, 0, 1);
  EXPECT_TRUE(process_tree(list_processes(dir_), 99).empty());
  EXPECT_FALSE(process_tree_usage(99, dir_).has_value());
}

TEST(ProcessTree, ARealForkedTreeIsFoundInProc) {
  // `up`: the child says the grandchild exists; `down`: its EOF ends both.
  int up[2];
  int down[2];
  ASSERT_EQ(::pipe(up), 0);
  ASSERT_EQ(::pipe(down), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::setpgid(0, 0);
    ::close(up[0]);
    ::close(down[1]);
    char c;
    if (::fork() == 0) {
      ::close(up[1]);
      (void)!::read(down[0], &c, 1);
      ::_exit(0);
    }
    (void)!::write(up[1], "x", 1);
    ::close(up[1]);
    (void)!::read(down[0], &c, 1);
    ::wait(nullptr);
    ::_exit(0);
  }
  ::close(up[1]);
  ::close(down[0]);
  char c;
  ASSERT_EQ(::read(up[0], &c, 1), 1);  // the grandchild exists
  ::close(up[0]);
  auto tree = process_tree(list_processes(), child);
  auto usage = process_tree_usage(child);
  ::close(down[1]);
  ::waitpid(child, nullptr, 0);
  EXPECT_EQ(tree.size(), 2u);
  ASSERT_TRUE(usage.has_value());
  EXPECT_EQ(usage->processes, 2u);
  EXPECT_GT(usage->rss_bytes, 0u);
}

}  // namespace
}  // namespace benchgate
