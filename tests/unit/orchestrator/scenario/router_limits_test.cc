// The bundled router's limits (common/router/router_limits.h) are the loader's too: [router]
// threads or [routers.NAME] threads past what the router takes for its --threads is refused at
// load time, at its value, with the value and the limit, instead of being accepted by `validate`
// and refused by the router when the run starts it. A value at the limit is accepted.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/router/router_limits.h"
#include "orchestrator/scenario/scenario_loader.h"
#include "scenario_test_support.h"

namespace benchgate::scenario {
namespace {

std::vector<std::string> router_refusals(const std::string& threads) {
  return test_support::diagnostic_lines(test_support::load_hermetic(
      "name = \"s\"\n[router]\nthreads = " + threads + "\n[[workloads]]\nname = \"w\"\n"));
}

std::string refusal(const std::string& at, const std::string& value) {
  return "s.toml:" + at + ": error: key 'threads' must be at most " +
         std::to_string(router_limits::kMaxThreads) +
         " (the bundled router's limit of serving threads, as for its --threads), got " + value;
}

TEST(RouterLimits, ThreadsPastTheBundledRoutersLimitAreRefusedAtTheValue) {
  static_assert(router_limits::kMaxThreads == 1024);
  EXPECT_EQ(router_refusals("1025"), std::vector<std::string>{refusal("3:11", "1025")});
  EXPECT_EQ(router_refusals("2000"), std::vector<std::string>{refusal("3:11", "2000")});
  // Past 32 bits the message names the router's limit, not the integer's.
  EXPECT_EQ(router_refusals("4294967296"), std::vector<std::string>{refusal("3:11", "4294967296")});
  EXPECT_EQ(router_refusals("0").size(), 1u);
}

TEST(RouterLimits, ThreadsAtTheLimitAreAccepted) {
  EXPECT_TRUE(router_refusals("1024").empty());
  LoadResult r = test_support::load_hermetic(
      "name = \"s\"\n[router]\nthreads = 1024\n[[workloads]]\nname = \"w\"\n");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.scenario->router.threads, router_limits::kMaxThreads);
}

TEST(RouterLimits, ACompareRoutersThreadsAreHeldToTheSameLimit) {
  const auto lines = test_support::diagnostic_lines(test_support::load_hermetic(
      "name = \"s\"\n[routers.a]\nthreads = 1\n[routers.b]\nthreads = 5000\n"
      "[compare]\nrouters = [\"a\", \"b\"]\n[defaults]\nrepetitions = 2\n"
      "[[workloads]]\nname = \"w\"\n"));
  EXPECT_EQ(lines, std::vector<std::string>{refusal("5:11", "5000")});
}

// ws_fragment_bytes is the router's --ws-fragment-bytes: its lower bound is the router's own
// (common/router/router_limits.h), and its upper one within the router's default
// --max-message-bytes, which is the router's upper bound when the orchestrator starts it.
TEST(RouterLimits, WsFragmentBytesIsHeldToTheBoundsTheRouterShares) {
  auto refusals = [](uint64_t bytes) {
    return test_support::diagnostic_lines(test_support::load_hermetic(
        "name = \"s\"\n[router]\nws_fragment_bytes = " + std::to_string(bytes) +
        "\n[[workloads]]\nname = \"w\"\n"));
  };
  const std::string refusal =
      "s.toml:3:21: error: key 'ws_fragment_bytes' must be 0 (off) or from " +
      std::to_string(router_limits::kMinWsFragmentBytes) + " bytes to " +
      std::to_string(router_limits::kMaxWsFragmentBytes >> 20) + "MiB, got ";
  const uint64_t min = router_limits::kMinWsFragmentBytes;
  const uint64_t max = router_limits::kMaxWsFragmentBytes;
  EXPECT_EQ(refusals(min - 1), std::vector<std::string>{refusal + std::to_string(min - 1)});
  EXPECT_EQ(refusals(max + 1), std::vector<std::string>{refusal + std::to_string(max + 1)});
  EXPECT_TRUE(refusals(0).empty());
  EXPECT_TRUE(refusals(min).empty());
  EXPECT_TRUE(refusals(max).empty());
}

}  // namespace
}  // namespace benchgate::scenario
