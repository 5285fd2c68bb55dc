// Workers found by name (orchestrator/workers/discovery): dns:NAME:PORT expands to every
// address the name resolves to, and the wait takes workers as they start answering, through a
// fake resolver and a fake Describe.
#include "orchestrator/workers/discovery.h"
#include "orchestrator/workers/worker_pool.h"

#include <gtest/gtest.h>

#include <map>

namespace benchgate::workers {
namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

Resolver fixed(std::map<std::string, std::vector<std::string>> names) {
  return [names](const std::string& name) -> Expected<std::vector<std::string>> {
    auto it = names.find(name);
    if (it == names.end()) return Error{"cannot resolve '" + name + "': unknown name"};
    return it->second;
  };
}

TEST(ExpandWorkerAddresses, ADnsEntryGivesEveryAddressOnceAndPlainEntriesStay) {
  auto out = expand_worker_addresses(
      {"load1:7800", "dns:workers:7801", "dns:again:7801"},
      fixed({{"workers", {"10.0.0.1", "10.0.0.2", "fd00::3"}}, {"again", {"10.0.0.2"}}}));
  ASSERT_TRUE(out.ok()) << out.message();
  EXPECT_EQ(*out, (std::vector<std::string>{"load1:7800", "10.0.0.1:7801", "10.0.0.2:7801",
                                            "[fd00::3]:7801"}));
}

// NAME:PORT is read by the one HOST:PORT parser (common/net/host_port.h) and each address
// written with the port it read: "07801" is port 7801, so one worker is listed once. The port
// was copied as text before, and the worker listed twice.
TEST(ExpandWorkerAddresses, APortIsWrittenAsANumberSoOneWorkerIsListedOnce) {
  auto out = expand_worker_addresses({"dns:workers:07801", "dns:workers:7801"},
                                     fixed({{"workers", {"10.0.0.1", "fd00::3"}}}));
  ASSERT_TRUE(out.ok()) << out.message();
  EXPECT_EQ(*out, (std::vector<std::string>{"10.0.0.1:7801", "[fd00::3]:7801"}));
}

TEST(ExpandWorkerAddresses, ABadEntryOrAnUnknownNameIsAnErrorNamingTheEntry) {
  for (const std::string entry :
       {"dns:workers", "dns::7800", "dns:workers:0", "dns:workers:70000", "dns:workers:78x"}) {
    auto out = expand_worker_addresses({entry}, fixed({{"workers", {"10.0.0.1"}}}));
    ASSERT_FALSE(out.ok()) << entry;
    EXPECT_NE(out.message().find("'" + entry + "'"), std::string::npos) << out.message();
    EXPECT_NE(out.message().find("dns:NAME:PORT"), std::string::npos) << out.message();
  }
  auto unknown = expand_worker_addresses({"dns:nobody:7800"}, fixed({}));
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.message().find("dns:nobody:7800"), std::string::npos);
  EXPECT_NE(unknown.message().find("unknown name"), std::string::npos);
}

// A headless Service answers with one address per ready pod: the second worker appears only on
// a later resolution, and one address never answers. The wait takes the two that do.
TEST(WaitForWorkers, ResolvesAgainEachRoundUntilEnoughAnswer) {
  int resolutions = 0;
  Resolver growing = [&](const std::string&) -> Expected<std::vector<std::string>> {
    ++resolutions;
    if (resolutions < 3) return std::vector<std::string>{"10.0.0.1", "10.0.0.9"};
    return std::vector<std::string>{"10.0.0.1", "10.0.0.9", "10.0.0.2"};
  };
  std::map<std::string, int> probes;
  Prober probe = [&](const std::string& address, Clock::time_point) -> Expected<void> {
    ++probes[address];
    if (address == "10.0.0.9:7800") return Error{"worker at 10.0.0.9:7800: no answer"};
    return {};
  };
  auto found = wait_for_workers({"dns:workers:7800"}, 2, Clock::now() + 60s, growing, probe);
  ASSERT_TRUE(found.ok()) << found.message();
  EXPECT_EQ(*found, (std::vector<std::string>{"10.0.0.1:7800", "10.0.0.2:7800"}));
  EXPECT_EQ(resolutions, 3);
  EXPECT_EQ(probes["10.0.0.1:7800"], 1) << "a worker that answered is not asked again";
  EXPECT_EQ(probes["10.0.0.9:7800"], 3);
  EXPECT_EQ(probes["10.0.0.2:7800"], 1);
}

TEST(WaitForWorkers, AtTheDeadlineSaysHowManyAnsweredOfHowMany) {
  Prober probe = [](const std::string& address, Clock::time_point) -> Expected<void> {
    if (address == "10.0.0.1:7800") return {};
    return Error{"worker at " + address + ": UNAUTHENTICATED"};
  };
  auto found = wait_for_workers({"dns:workers:7800"}, 3, Clock::now() + 300ms,
                                fixed({{"workers", {"10.0.0.1", "10.0.0.2"}}}), probe);
  ASSERT_FALSE(found.ok());
  EXPECT_NE(found.message().find("needs 3 workers but only 1 answered Describe"), std::string::npos)
      << found.message();
  EXPECT_NE(found.message().find("of 2 addresses dns:workers:7800 gave (10.0.0.1:7800, "
                                 "10.0.0.2:7800); not answering: 10.0.0.2:7800"),
            std::string::npos)
      << found.message();
  EXPECT_NE(found.message().find("UNAUTHENTICATED"), std::string::npos) << found.message();
}

TEST(WaitForWorkers, AMalformedEntryEndsTheWaitAtOnce) {
  Prober never = [](const std::string&, Clock::time_point) -> Expected<void> {
    ADD_FAILURE() << "nothing to probe";
    return {};
  };
  // An hour's deadline: only returning at once lets this test finish.
  auto found = wait_for_workers({"dns:workers"}, 1, Clock::now() + 3600s, fixed({}), never);
  ASSERT_FALSE(found.ok());
  EXPECT_EQ(found.message(),
            "--workers-at 'dns:workers' is not an address to connect to: it has no :PORT; "
            "expected HOST:PORT with a port of 1 to 65535 (\"127.0.0.1:7700\", \"[::1]:7700\"), "
            "dns:NAME:PORT or unix:PATH");
  EXPECT_TRUE(check_worker_entries({"load1:7800", "dns:workers:7800", "unix:/w.sock"}).ok());
  EXPECT_FALSE(check_worker_entries({"load1:7800", "dns:workers:"}).ok());
  // Every entry, not only a dns: one: a plain entry without a port was taken, and gRPC dialled
  // it at a port of its own choosing.
  EXPECT_FALSE(check_worker_entries({"load1"}).ok());
}

TEST(WaitForWorkers, ANameThatNeverResolvesEndsWithTheResolverError) {
  Prober never = [](const std::string&, Clock::time_point) -> Expected<void> {
    ADD_FAILURE() << "nothing to probe";
    return {};
  };
  auto found = wait_for_workers({"dns:nobody:7800"}, 1, Clock::now() + 200ms, fixed({}), never);
  ASSERT_FALSE(found.ok());
  EXPECT_NE(found.message().find("only 0 answered"), std::string::npos) << found.message();
  EXPECT_NE(found.message().find("cannot resolve 'nobody'"), std::string::npos) << found.message();
}

TEST(SystemResolver, ResolvesLocalhostToALoopbackAddress) {
  auto out = expand_worker_addresses({"dns:localhost:7800"}, system_resolver());
  ASSERT_TRUE(out.ok()) << out.message();
  ASSERT_FALSE(out->empty());
  bool loopback = false;
  for (const auto& a : *out) loopback |= a == "127.0.0.1:7800" || a == "[::1]:7800";
  EXPECT_TRUE(loopback) << out->front();
}

}  // namespace
}  // namespace benchgate::workers

namespace benchgate::workers {
namespace {

// A worker that refuses the token will refuse it again: the wait ends at once with its answer.
TEST(WaitForWorkers, ARefusalEndsTheWaitAtOnce) {
  int probes = 0;
  Prober refusing = [&probes](const std::string& address, Clock::time_point) -> ProbeAnswer {
    ++probes;
    return {Error{"worker at " + address +
                  " refused the orchestrator's call (UNAUTHENTICATED: no token); give the "
                  "worker's token with --worker-token-file FILE"},
            /*final_=*/true};
  };
  // An hour's deadline: only returning at once lets this test finish.
  auto found = wait_for_workers({"10.0.0.1:7800"}, 1, Clock::now() + 3600s, fixed({}), refusing);
  ASSERT_FALSE(found.ok());
  EXPECT_EQ(probes, 1);
  EXPECT_EQ(found.message(),
            "worker at 10.0.0.1:7800 refused the orchestrator's call (UNAUTHENTICATED: no "
            "token); give the worker's token with --worker-token-file FILE");
}

}  // namespace
}  // namespace benchgate::workers
