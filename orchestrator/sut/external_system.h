// A system under test that is not the bundled router: either a command the orchestrator
// spawns (impl = "command") or an address that is already serving (impl = "external").
// Readiness is a TCP connect probe (of `ready`; without it, of `address` and of each transport
// address given: readiness_probes()); metrics are sampled from the outside: /proc CPU and RSS of
// a spawned command, and the counters of its [router] metrics endpoint when the scenario names
// one (metrics_scrape.h). No request counters: nothing tells which of its counters count
// requests, so the router-count check is skipped for it.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "orchestrator/processes/child_process.h"
#include "orchestrator/sut/system_under_test.h"

namespace benchgate::sut {

class ExternalSystem : public SystemUnderTest {
 public:
  ExternalSystem(const scenario::RouterConfig& config, const SutContext& context);
  ~ExternalSystem() override;

  Expected<void> start(std::chrono::steady_clock::time_point deadline) override;
  std::string address() const override { return config_.address; }
  // [router] rawsocket_address or websocket_address where given, else `address`.
  Expected<std::string> wamp_address(const std::string& transport) const override;
  std::string wamp_address_hint(const std::string& transport) const override;
  std::optional<Error> failure() override;
  std::optional<Error> exited() override;
  std::string stopped_since_last_call() override;
  Expected<std::optional<MetricsSnapshot>> snapshot() override;
  void stop() override;
  std::string description() const override;

 private:
  scenario::RouterConfig config_;
  SutContext context_;
  std::unique_ptr<processes::ChildProcess> process_;
};

// What a start waits for, each with the scenario key that gives it: `ready` where the scenario
// gives it (the one probe it asked for), else `address` and then `rawsocket_address` and
// `websocket_address` where given and different, since workers connect to each.
std::vector<std::pair<std::string, std::string>> readiness_probes(
    const scenario::RouterConfig& config);

// Tries a TCP connection to "HOST:PORT" (or "tcp://HOST:PORT") until it succeeds, the deadline
// passes, the run is interrupted, or `gone` (when given) returns why nothing will ever accept
// (the spawned server exited). A deadline error names the last connect error ("connection
// refused"), so an unreachable address is told from a slow one, and says how long the start had:
// `time_given` (startup_time_given(), system_under_test.h). `key`, when given, is the scenario key
// that set `endpoint`, named after it: a start that waits on several addresses says which.
Expected<void> wait_for_tcp(const std::string& endpoint, std::chrono::nanoseconds time_given,
                            std::chrono::steady_clock::time_point deadline,
                            const std::function<std::optional<Error>()>& gone = {},
                            std::string_view key = {});

}  // namespace benchgate::sut
