// The worker tokens a killed orchestrator left in its log folder are removed by the next run
// (orchestrator/app/run_setup.h, remove_stale_worker_tokens); nothing else is, and not those of
// an orchestrator still holding its folder's lock, whatever PID their names carry.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "orchestrator/app/run_setup.h"
#include "store_test_support.h"

namespace benchgate::app {
namespace {

namespace fs = std::filesystem;

// The PID of a process that has exited and been reaped.
pid_t gone_pid() {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  int status = 0;
  ::waitpid(child, &status, 0);
  return child;
}

void write(const fs::path& path) { std::ofstream(path) << "secret\n"; }

fs::path folder(const fs::path& path) {
  fs::create_directories(path);
  fs::permissions(path, fs::perms::owner_all, fs::perm_options::replace);
  return path;
}

// A child process that stands for a running orchestrator: it makes its log folder in
// `temp_dir` as `run` does (make_log_dir, which locks it) and lives until end() is called.
class RunningOrchestrator {
 public:
  explicit RunningOrchestrator(const std::string& temp_dir) {
    int made[2];
    int told[2];
    if (::pipe(made) != 0 || ::pipe(told) != 0) return;
    pid_ = ::fork();
    if (pid_ == 0) {
      ::close(made[0]);
      ::close(told[1]);
      ::setenv("TMPDIR", temp_dir.c_str(), 1);
      const auto made_dir = make_log_dir("benchgate-run");
      const std::string dir = made_dir ? *made_dir : std::string();
      const auto written = ::write(made[1], dir.data(), dir.size());
      ::close(made[1]);
      char byte = 0;
      const auto read = ::read(told[0], &byte, 1);  // until the parent closes its end
      ::_exit(written > 0 && read >= 0 ? 0 : 1);
    }
    ::close(made[1]);
    ::close(told[0]);
    end_ = told[1];
    char path[4096];
    const auto n = ::read(made[0], path, sizeof path);
    ::close(made[0]);
    if (n > 0) log_dir_ = std::string(path, static_cast<size_t>(n));
  }
  ~RunningOrchestrator() { end(); }

  const fs::path& log_dir() const { return log_dir_; }

  // The child exits, and the kernel lets its lock go.
  void end() {
    if (end_ < 0) return;
    ::close(end_);
    end_ = -1;
    int status = 0;
    ::waitpid(pid_, &status, 0);
  }

 private:
  pid_t pid_ = -1;
  int end_ = -1;
  fs::path log_dir_;
};

TEST(StaleTokens, ATokenStaysWhileItsOrchestratorHoldsTheFolderWhateverItsPid) {
  store::testing::TempDir tmp;
  RunningOrchestrator running(tmp.path());
  ASSERT_FALSE(running.log_dir().empty());
  ASSERT_EQ(running.log_dir().parent_path(), fs::path(tmp.path()));
  // Its PID as seen from another PID namespace sharing the folder: no process here has it.
  const fs::path token = running.log_dir() / ("worker-token-" + std::to_string(gone_pid()) + "-0");
  write(token);

  EXPECT_EQ(remove_stale_worker_tokens(tmp.path()), 0u);
  EXPECT_TRUE(fs::exists(token));

  running.end();
  EXPECT_EQ(remove_stale_worker_tokens(tmp.path()), 1u);
  EXPECT_FALSE(fs::exists(running.log_dir()));
}

TEST(StaleTokens, ATokenOfAGoneOrchestratorIsRemovedAndItsEmptyFolderToo) {
  store::testing::TempDir tmp;
  const std::string dead = "worker-token-" + std::to_string(gone_pid()) + "-0";
  const fs::path only_token = folder(tmp.file("benchgate-run-aaaaaa"));
  write(only_token / dead);
  const fs::path with_logs = folder(tmp.file("benchgate-run-bbbbbb"));
  write(with_logs / "worker-0.stderr.log");
  const fs::path impl = folder(with_logs / "scenario-2" / "worker-impl-x");
  write(impl / dead);

  EXPECT_EQ(remove_stale_worker_tokens(tmp.file("")), 2u);
  EXPECT_FALSE(fs::exists(only_token));
  EXPECT_FALSE(fs::exists(with_logs / "scenario-2"));
  EXPECT_TRUE(fs::exists(with_logs / "worker-0.stderr.log"));
}

TEST(StaleTokens, ALiveOrchestratorsTokenAndWhatIsNotOursStay) {
  store::testing::TempDir tmp;
  RunningOrchestrator orchestrator(tmp.path());
  ASSERT_FALSE(orchestrator.log_dir().empty());
  const std::string dead = "worker-token-" + std::to_string(gone_pid()) + "-0";
  const fs::path running = orchestrator.log_dir();
  const std::string live = "worker-token-" + std::to_string(::getpid()) + "-0";
  write(running / live);
  // Another program's folder, a folder others may read, and a link to a run's folder.
  const fs::path other = folder(tmp.file("other-dddddd"));
  write(other / dead);
  const fs::path open = folder(tmp.file("benchgate-run-eeeeee"));
  fs::permissions(open, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec,
                  fs::perm_options::replace);
  write(open / dead);
  const fs::path target = folder(tmp.file("target"));
  write(target / dead);
  fs::create_directory_symlink(target, tmp.file("benchgate-run-ffffff"));

  EXPECT_EQ(remove_stale_worker_tokens(tmp.file("")), 0u);
  EXPECT_TRUE(fs::exists(running / live));
  EXPECT_TRUE(fs::exists(other / dead));
  EXPECT_TRUE(fs::exists(open / dead));
  EXPECT_TRUE(fs::exists(target / dead));
}

// No descriptor left for the lock (EMFILE): the folder would stay unlocked, and the next run's
// cleaner would remove this run's live worker tokens from it. make_log_dir fails instead,
// naming why, and leaves no folder behind.
TEST(StaleTokens, ALogFolderThatCannotBeLockedIsAnErrorAndIsRemoved) {
  store::testing::TempDir tmp;
  const char* tmpdir_before = ::getenv("TMPDIR");
  const std::string tmpdir_was = tmpdir_before != nullptr ? tmpdir_before : "";
  ::setenv("TMPDIR", tmp.path().c_str(), 1);
  rlimit limit_before{};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &limit_before), 0);
  // The lowest free descriptor becomes the limit: the next open() fails with EMFILE.
  const int lowest_free = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  ASSERT_GE(lowest_free, 0);
  ::close(lowest_free);
  rlimit lowered = limit_before;
  lowered.rlim_cur = static_cast<rlim_t>(lowest_free);
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &lowered), 0);
  auto made = make_log_dir("benchgate-run");
  ::setrlimit(RLIMIT_NOFILE, &limit_before);
  if (tmpdir_before != nullptr) {
    ::setenv("TMPDIR", tmpdir_was.c_str(), 1);
  } else {
    ::unsetenv("TMPDIR");
  }
  ASSERT_FALSE(made.ok());
  EXPECT_NE(made.message().find("cannot lock the log folder " + tmp.path() + "/benchgate-run-"),
            std::string::npos)
      << made.message();
  EXPECT_NE(made.message().find("Too many open files"), std::string::npos) << made.message();
  EXPECT_TRUE(fs::is_empty(tmp.path()));
}

}  // namespace
}  // namespace benchgate::app
