// What the engine reports about a window: the whole-window result and the interval progress
// figures. Domain types; worker/service/proto_convert turns them into benchgate.v1 messages.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/histogram/hdr_histogram.h"
#include "worker/engine/error_kind.h"
#include "worker/engine/session_end.h"

namespace benchgate::worker {

// Latency figures exactly as a wrapped tool printed them (worker/adapters/); a figure the tool
// did not print stays absent, never 0.
struct ToolLatency {
  std::string tool;  // "h2load nghttp2/1.52.0"
  std::optional<int64_t> min_ns;
  std::optional<int64_t> mean_ns;
  std::optional<int64_t> stdev_ns;
  std::optional<int64_t> max_ns;
  std::vector<std::pair<std::string, int64_t>> percentiles_ns;  // {"50", ns}, ...
};

// One load thread's CPU over the window (start to end, the drain excluded).
struct ThreadCpu {
  int64_t cpu_ns = 0;
  std::optional<int64_t> run_delay_ns;  // waiting for a CPU; absent: not measured
  int64_t wall_ns = 0;
};

// How connections were set up (TCP connect, TLS handshake, first response), collected from
// the stream's start or the previous measured window until a measured window takes them.
struct ConnectionSetup {
  uint64_t connections = 0;
  uint64_t handshakes = 0;
  uint64_t resumed = 0;  // handshakes in which the server resumed the session offered
  HdrHistogram connect;
  HdrHistogram tls_handshake;
  HdrHistogram ttfb;
  // WAMP: each session's TCP connect start to WELCOME (authentication included).
  HdrHistogram session_setup;

  void add(const ConnectionSetup& other) {
    connections += other.connections;
    handshakes += other.handshakes;
    resumed += other.resumed;
    connect.add(other.connect);
    tls_handshake.add(other.tls_handshake);
    ttfb.add(other.ttfb);
    session_setup.add(other.session_setup);
  }
};

// TLS as the peer chose it (OpenSSL's names).
struct NegotiatedTls {
  std::string version;
  std::string cipher;
  std::string alpn;
};

struct WindowResult {
  uint32_t window = 0;
  bool open_loop = false;
  // Requests of the window that completed (response or error): closed loop, those sent in
  // it; open loop, those due in it (not_sent errors included).
  uint64_t operations = 0;
  uint64_t successes = 0;
  // What completed before the window's end (throughput); absent for a tool that does not
  // tell (the adapters report their tool's counts over its own duration).
  bool in_window_measured = true;
  uint64_t window_successes = 0;
  uint64_t window_bytes_received = 0;
  uint64_t window_payload_bytes = 0;
  // Failed operations by kind, plus connection-level failures that belong to no operation
  // ("connect" when a reconnect fails, "protocol" for bytes nobody asked for).
  ErrorCounts errors{};
  uint64_t bytes_sent = 0;
  uint64_t bytes_received = 0;
  int64_t first_send_unix_ns = 0;  // 0: nothing was sent
  int64_t last_receive_unix_ns = 0;
  HdrHistogram latency;
  HdrHistogram service_time;      // open loop only
  uint64_t late_sends = 0;        // open loop only
  uint64_t unsent = 0;            // open loop only: due in the window, still unwritten at its end
  int64_t started_unix_ns = 0;    // the earliest load thread's start; 0: not reported
  int64_t started_steady_ns = 0;  // the same instant on CLOCK_MONOTONIC (steady_now_ns)
  std::vector<ThreadCpu> thread_cpu;
  // Operations whose latency was above the histograms' highest trackable value, each once
  // (clamped_operations).
  uint64_t latency_clamped = 0;
  int64_t cpu_user_ns = 0;
  int64_t cpu_system_ns = 0;
  int64_t wall_ns = 0;
  uint32_t threads = 0;
  bool pubsub = false;  // WAMP pub/sub: the event counts below are meaningful
  uint64_t events_expected = 0;
  uint64_t events_delivered = 0;
  // wamp_transfer: sums over the window's verified transfers (docs/MEASUREMENT.md
  // "Transfer throughput").
  struct Transfer {
    uint64_t transfers = 0;
    uint64_t data_bytes = 0;
    int64_t data_ns = 0;
    uint64_t lifecycle_bytes = 0;
    int64_t lifecycle_ns = 0;
  };
  std::optional<Transfer> transfer;
  // wamp_rpc with callee = "worker": the invocations each of the worker's callee sessions got
  // in the window, in session order (empty otherwise).
  std::vector<uint64_t> callee_invocations;
  // WAMP, measured windows only: the sessions set up since the previous measured window's
  // result (the first: since the stream began), connect start to WELCOME (ns).
  std::optional<HdrHistogram> session_setup;
  // The sessions the peer ended in the window, by its words (WAMP; worker/engine/session_end.h).
  std::vector<SessionEnd> sessions_ended;
  // Adapters only: set instead of `latency`, which then stays empty.
  std::optional<ToolLatency> tool_latency;
  // Set by a driver that reports connection setup (HTTP/1.1, HTTP/2); absent otherwise.
  std::optional<ConnectionSetup> setup;
  std::optional<NegotiatedTls> tls;
  uint32_t requested_streams = 0;  // http2 only; 0: not http2
  uint32_t effective_streams = 0;
  // Connections set up between the window's start and end (HTTP drivers only).
  uint64_t window_connections = 0;
  // Names of the fields above that could not be measured ("bytes_sent", "data_window", ...).
  std::vector<std::string> not_measured;
};

// The operations whose latency or service time was clamped to the histograms' highest value
// (docs/MEASUREMENT.md "Latency histograms"), each counted once. An operation's service time
// (completion - write) is never longer than its latency (completion - intended instant, which
// no write precedes), so every service time clamped belongs to an operation whose latency was
// clamped too: adding the two would count it twice.
inline uint64_t clamped_operations(const HdrHistogram& latency, const HdrHistogram& service_time) {
  return static_cast<uint64_t>(std::max(latency.overflow_count(), service_time.overflow_count()));
}

// Figures of one progress interval of a running window.
struct ProgressReport {
  uint32_t window = 0;
  int64_t interval_ns = 0;
  uint64_t operations = 0;
  uint64_t errors = 0;
  HdrHistogram latency;
};

}  // namespace benchgate::worker
