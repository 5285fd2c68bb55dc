// The system under test (docs/SCENARIOS.md [router]): the bundled router, a command the
// orchestrator spawns, or an external address already running. The engine sees only this
// interface: where to send load, whether it is still alive, and its metrics around a window.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "common/histogram/hdr_histogram.h"
#include "common/util/expected.h"
#include "orchestrator/scenario/scenario.h"

namespace benchgate::sut {

// A point-in-time reading of the system under test; two of them give a window's deltas.
struct MetricsSnapshot {
  // Counters were read: the bundled router's through its control endpoint, or a command's or
  // external system's from its [router] metrics endpoint (metrics_scrape.h).
  bool has_counters = false;
  std::map<std::string, uint64_t> counters;  // "name{label=value,...}" -> value
  // A reading: counters it saw but holds no count of (a scraped value that is not a whole
  // number of 0 or more: 1.5, NaN, +Inf); a delta leaves them out.
  std::set<std::string> uncounted;
  // A delta: counters left out because they went down between the readings, or were in the
  // reading before and are missing from the one after (the system restarted); not measured in
  // that window, never 0.
  std::set<std::string> went_down;
  // The counters include request counters whose sum is `requests` (the bundled router only:
  // nothing tells which of a foreign system's counters count requests). Only then does the
  // window get router.requests and the router-count cross-check (docs/MEASUREMENT.md,
  // "Cross-checks").
  bool has_requests = false;
  uint64_t requests = 0;  // sum of request counters
  // CPU and RSS were read: the bundled router reports its own, a spawned command's whole
  // process tree is read from /proc (process_tree.h).
  bool has_resources = false;
  double cpu_seconds = 0;  // user + system since start
  uint64_t rss_bytes = 0;
  std::optional<HdrHistogram> handling;  // server-side handling time, when exposed
};

class SystemUnderTest {
 public:
  virtual ~SystemUnderTest() = default;
  // Starts (or attaches to) the system and waits until it is ready, or fails by `deadline`.
  virtual Expected<void> start(std::chrono::steady_clock::time_point deadline) = 0;
  // "HOST:PORT" workers connect to (HTTP/1.1).
  virtual std::string address() const = 0;
  // "HOST:PORT" of a WAMP transport, "websocket" or "rawsocket". By default the one address;
  // a command or external system's [router] rawsocket_address or websocket_address where given.
  virtual Expected<std::string> wamp_address(const std::string& /*transport*/) const {
    return address();
  }
  // What to add to the error of a WAMP workload of `transport` that could not connect to
  // wamp_address(): for a system whose WAMP address is its one address only because the
  // scenario names none for that transport, the key that would ("rawsocket_address"). Empty
  // where there is nothing to suggest.
  virtual std::string wamp_address_hint(const std::string& /*transport*/) const { return {}; }
  // Nothing while the system is alive; otherwise why not ("router (pid 12) killed by signal
  // 9", with its stderr tail as the error's detail).
  virtual std::optional<Error> failure() = 0;
  // The part of failure() that cannot pass: the process this orchestrator started has exited
  // (a stopped one may still be continued). Nothing for a system it did not start. A running
  // window ends on it at once, rather than at its deadline.
  virtual std::optional<Error> exited() = 0;
  // "router (pid 1234)" when the process this orchestrator started was stopped (SIGSTOP, a
  // debugger) at any moment since the previous call, even if continued since; else empty.
  virtual std::string stopped_since_last_call() { return {}; }
  // Called between windows, while no load flows: the bundled router clears its handling
  // histogram here so the snapshot after the window holds exactly that window's histogram.
  virtual Expected<void> begin_window() { return {}; }
  // The PEM text of the CA that signed the certificate this orchestrator gave the system
  // ([router] tls = true on the bundled router); empty when it gave none. Workloads with
  // tls = true and neither ca_file nor insecure verify against it.
  virtual std::string ca_pem() const { return {}; }
  // A metrics reading, or nullopt when this system exposes none.
  virtual Expected<std::optional<MetricsSnapshot>> snapshot() = 0;
  // Stops what start() started; attaching implementations leave the system running.
  virtual void stop() = 0;
  // For reports: "builtin router (1 thread)".
  virtual std::string description() const = 0;
};

struct SutContext {
  std::string router_binary;  // the bundled router executable
  std::string log_dir;        // where child stderr logs go
  // The engine's startup deadline, where the scenario's [router] sets no startup_timeout; 0 where
  // the caller gives its own deadline (worker-check).
  std::chrono::nanoseconds default_startup_timeout{0};
};

// How long a start had, for the message of one that ran out of time: the startup_timeout it was
// given (the scenario's, else the engine's), not the deadline less the instant the start began,
// which a busy machine makes a few milliseconds shorter ("within 992ms" for a timeout of 1s).
// Where neither is known, what the deadline left when the start began.
std::chrono::nanoseconds startup_time_given(const scenario::RouterConfig& config,
                                            const SutContext& context,
                                            std::chrono::steady_clock::time_point began,
                                            std::chrono::steady_clock::time_point deadline);

std::unique_ptr<SystemUnderTest> make_system_under_test(const scenario::RouterConfig& config,
                                                        const SutContext& context);

// Window deltas: after - before for every counter and for CPU time; RSS and the handling
// histogram are taken from `after` (begin_window() cleared the histogram). A counter first
// seen in `after` counts from 0. A counter that went down (the system restarted; the bundled
// router's are only reset before the `before` reading), one `before` has that `after` lacks
// (neither counted nor uncounted there), or one either reading could not count is left out of
// the delta's counters; the ones that went down or went missing are listed in its `went_down`. CPU
// time that went down (a process of a command's tree exited unwaited-for, taking its time with it)
// is no figure: the delta then has no resources.
MetricsSnapshot difference(const MetricsSnapshot& before, const MetricsSnapshot& after);

}  // namespace benchgate::sut
