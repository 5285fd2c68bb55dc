// How long a start of the system under test had, as its out-of-time message says it: the
// startup_timeout it was given, however late the start began after its deadline was set.
#include <gtest/gtest.h>

#include <chrono>
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

}  // namespace
}  // namespace benchgate::sut
