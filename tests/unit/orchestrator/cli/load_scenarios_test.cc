// load_all (orchestrator/cli/load_scenarios.h), what `run`, `validate` and `calibrate` load
// their files with: Ctrl-C while a file's pipe is waited on is an interrupt (exit 3) that stops
// the load there, not an invalid file (exit 2) after which the next file is read.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <string>

#include "orchestrator/app/interrupt.h"
#include "orchestrator/cli/exit_codes.h"
#include "orchestrator/cli/load_scenarios.h"

namespace benchgate::cli {
namespace {

using std::chrono::milliseconds;

void ignore_signal(int) {}

// What was written to a temporary FILE*.
std::string contents(std::FILE* file) {
  std::fflush(file);
  std::rewind(file);
  std::string text;
  char buffer[4096];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, file)) > 0) text.append(buffer, n);
  return text;
}

// The first file is a pipe nobody writes to, the second a file that does not exist. A caught
// signal (Ctrl-C) ends the wait for the pipe: the load stops with exit 3 and never looks at the
// second file (before: exit 2, and "no such scenario file" for the second one; with a second
// pipe, another full idle timeout). The signal is sent again until the load returns, so that
// one landing before the wait began does not matter.
TEST(LoadAllTest, AnInterruptedPipeStopsTheLoadWithTheInterruptsExitCode) {
  int ends[2];
  ASSERT_EQ(::pipe2(ends, O_CLOEXEC), 0);
  struct sigaction action {
  }, previous{};
  action.sa_handler = ignore_signal;
  sigemptyset(&action.sa_mask);
  ASSERT_EQ(::sigaction(SIGUSR1, &action, &previous), 0);
  std::FILE* err = std::tmpfile();
  ASSERT_NE(err, nullptr);
  const std::string pipe_path = "/dev/fd/" + std::to_string(ends[0]);
  const std::string missing = ::testing::TempDir() + "load_all_missing_scenario.toml";
  scenario::LoadOptions options;
  options.pipe_idle_timeout = milliseconds(600000);
  std::promise<pthread_t> loader_thread;
  auto loading = std::async(std::launch::async, [&] {
    loader_thread.set_value(::pthread_self());
    return load_all({pipe_path, missing}, err, options);
  });
  const pthread_t loader = loader_thread.get_future().get();
  while (loading.wait_for(milliseconds(20)) != std::future_status::ready) {
    ::pthread_kill(loader, SIGUSR1);
  }
  LoadedScenarios loaded = loading.get();
  ::sigaction(SIGUSR1, &previous, nullptr);
  ::close(ends[0]);
  ::close(ends[1]);
  EXPECT_FALSE(loaded.scenarios.has_value());
  EXPECT_EQ(loaded.exit_code, kExitRunError);
  EXPECT_EQ(contents(err), pipe_path + ": error: interrupted while waiting for the pipe\n");
  std::fclose(err);
}

// Ctrl-C caught before the pipe's wait began (its handler only sets the flag): load_all asks
// the orchestrator's flag (app::interrupted) while it waits, so the load stops with exit 3 at
// once, naming the pipe only. Before, a Ctrl-C landing between the open and the poll was lost
// and each pipe waited out its idle timeout (here 10 minutes; in CI, `validate a.toml b.toml`
// on two named pipes exited 2 after both). In a child process: the flag stays set for the life
// of the process that caught the signal.
TEST(LoadAllTest, ACtrlCCaughtBeforeThePipesWaitStopsTheLoadAtOnce) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        app::install_interrupt_handlers();
        std::raise(SIGINT);
        int ends[2];
        if (::pipe2(ends, O_CLOEXEC) != 0) std::_Exit(10);
        std::FILE* err = std::tmpfile();
        if (err == nullptr) std::_Exit(11);
        const std::string pipe_path = "/dev/fd/" + std::to_string(ends[0]);
        const std::string missing = ::testing::TempDir() + "load_all_missing_after_ctrl_c.toml";
        scenario::LoadOptions options;
        options.pipe_idle_timeout = milliseconds(600000);
        LoadedScenarios loaded = load_all({pipe_path, missing}, err, options);
        const std::string said = contents(err);
        if (said != pipe_path + ": error: interrupted while waiting for the pipe\n") {
          std::fprintf(stderr, "said: %s", said.c_str());
          std::_Exit(12);
        }
        std::_Exit(loaded.scenarios.has_value() ? 13 : loaded.exit_code);
      },
      ::testing::ExitedWithCode(kExitRunError), "");
}

TEST(LoadAllTest, AnInvalidFileIsExitTwoAndEveryFileIsRead) {
  std::FILE* err = std::tmpfile();
  ASSERT_NE(err, nullptr);
  const std::string a = ::testing::TempDir() + "load_all_missing_a.toml";
  const std::string b = ::testing::TempDir() + "load_all_missing_b.toml";
  LoadedScenarios loaded = load_all({a, b}, err);
  EXPECT_FALSE(loaded.scenarios.has_value());
  EXPECT_EQ(loaded.exit_code, kExitInvalidInput);
  EXPECT_EQ(contents(err),
            a + ": error: no such scenario file\n" + b + ": error: no such scenario file\n");
  std::fclose(err);
}

}  // namespace
}  // namespace benchgate::cli
