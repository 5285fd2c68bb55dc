// How long a start of the system under test had, as its out-of-time message says it: the
// startup_timeout it was given, however late the start began after its deadline was set.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>

#include "orchestrator/sut/external_system.h"
#include "orchestrator/sut/system_under_test.h"

namespace benchgate::sut {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

TEST(StartupTime, TheScenariosTimeoutComesFirstThenTheEnginesThenWhatTheDeadlineLeft) {
  const auto began = Clock::now();
  const auto deadline = began + 700ms;
  scenario::RouterConfig config;
  SutContext context;
  EXPECT_EQ(startup_time_given(config, context, began, deadline), 700ms);
  context.default_startup_timeout = 30s;
  EXPECT_EQ(startup_time_given(config, context, began, deadline), 30s);
  config.startup_timeout_ns = 2'000'000'000;
  EXPECT_EQ(startup_time_given(config, context, began, deadline), 2s);
}

// The deadline is set a moment before the start begins; on a busy machine that moment is
// milliseconds long, and the message said "within 992ms" for a timeout of 1s.
TEST(StartupTime, AnExternalSystemThatNeverAcceptsNamesTheTimeoutItWasGivenNotWhatWasLeft) {
  scenario::RouterConfig config;
  config.impl = scenario::RouterImpl::kExternal;
  config.address = "127.0.0.1:1";  // nothing listens: every attempt is refused
  config.startup_timeout_ns = 300'000'000;
  ExternalSystem system(config, SutContext{});
  const auto deadline = Clock::now() + 300ms;
  std::this_thread::sleep_for(100ms);  // the start begins late
  auto started = system.start(deadline);
  ASSERT_FALSE(started);
  EXPECT_EQ(started.error().headline(),
            "nothing accepted connections on 127.0.0.1:1 within 300ms (startup_timeout; the last "
            "attempt: connection refused)");
}

// A command's program written as a path that is missing fails the start naming it (and, for a
// relative one, the folder it is resolved against), before any port is probed or anything spawned.
TEST(StartupTime, ACommandWhosePathDoesNotExistFailsNamingIt) {
  scenario::RouterConfig config;
  config.impl = scenario::RouterImpl::kCommand;
  config.address = "127.0.0.1:1";
  config.command = {"/nonexistent-benchgate-dir/router", "--http", "127.0.0.1:1"};
  ExternalSystem absolute(config, SutContext{});
  auto started = absolute.start(Clock::now() + 1s);
  ASSERT_FALSE(started);
  EXPECT_EQ(started.error().kind, ErrorKind::kFailed);
  EXPECT_EQ(started.error().headline(),
            "the command's program '/nonexistent-benchgate-dir/router' does not exist");

  config.command.front() = "./nonexistent-benchgate-dir/router";
  ExternalSystem relative(config, SutContext{});
  started = relative.start(Clock::now() + 1s);
  ASSERT_FALSE(started);
  EXPECT_EQ(started.error().headline(),
            "the command's program './nonexistent-benchgate-dir/router' (a relative path, "
            "resolved against the working directory " +
                std::filesystem::current_path().string() + ") does not exist");

  config.command.front() = "/";  // a folder
  ExternalSystem folder(config, SutContext{});
  started = folder.start(Clock::now() + 1s);
  ASSERT_FALSE(started);
  EXPECT_EQ(started.error().headline(),
            "the command's program '/' is a folder, not a regular file");
}

}  // namespace
}  // namespace benchgate::sut
