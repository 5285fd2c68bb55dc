// The worker tokens a killed orchestrator left in its log folder are removed by the next run
// (orchestrator/app/run_setup.h, remove_stale_worker_tokens); nothing else is.
#include <gtest/gtest.h>
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
  const std::string live = "worker-token-" + std::to_string(::getpid()) + "-0";
  const std::string dead = "worker-token-" + std::to_string(gone_pid()) + "-0";
  const fs::path running = folder(tmp.file("benchgate-run-cccccc"));
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

}  // namespace
}  // namespace benchgate::app
