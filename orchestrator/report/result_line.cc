#include "orchestrator/report/result_line.h"

#include "orchestrator/results/resumption.h"

#include <fmt/format.h>

namespace benchgate::report {
namespace {

// Percentile of every measured repetition merged, in microseconds; "-" when nothing was
// measured (a figure that was not measured is never printed as 0).
std::string micros(const results::WorkloadResult& w, double percentile) {
  auto ns = w.latency_at(percentile);
  if (!ns) return "-";
  return fmt::format("{:.1f}", static_cast<double>(*ns) / 1000.0);
}

// A percentile of a connection-setup histogram in microseconds; "-" when nothing was recorded.
std::string setup_micros(const std::optional<results::ConnectionSetup>& setup,
                         HdrHistogram results::ConnectionSetup::*histogram, double percentile) {
  if (!setup || ((*setup).*histogram).total_count() == 0) return "-";
  return fmt::format(
      "{:.1f}",
      static_cast<double>(((*setup).*histogram).value_at_percentile(percentile)) / 1000.0);
}

}  // namespace

std::optional<uint64_t> measured_errors(const results::WorkloadResult& w) {
  if (w.repetitions.empty()) return std::nullopt;
  return w.error_count();
}

// Fields keep their first meaning (docs/MEASUREMENT.md "RESULT lines"): rps and mbps/gbps
// are the median repetition's in-window throughput; mbps is wire megabytes/s (10^6 bytes) and
// gbps the same bytes in gigabits/s. The later wire_bytes_per_s and payload_bytes_per_s say
// in their names which bytes they count. transport, serializer and payload_bytes are the WAMP
// workload's parameters (payload_bytes: the argument of every CALL or PUBLISH). tls is the
// version the server chose ("TLSv1.3", "-" for cleartext), alpn its ALPN choice, streams and
// effective_streams an http2 workload's streams per connection as asked and as the server's
// SETTINGS_MAX_CONCURRENT_STREAMS allowed; connect, handshake and ttfb the median of every
// connection's setup times (docs/MEASUREMENT.md "Connections and TLS"); handshakes_per_s the
// median repetition's connections set up per second of its window (new_connection_per_request
// only) and resumed the TLS handshakes in which the server resumed the session offered, for a
// workload that reconnects per operation over TLS (results/resumption.h; docs/MEASUREMENT.md
// "Handshakes per second"); load_from "local" or the workers' hosts,
// "-" when no worker ran (docs/MEASUREMENT.md "Where the load came from"). flags is the union of
// transfer_bytes and chunk_bytes a wamp_transfer workload's sizes, data_window_gbps and
// lifecycle_gbps the median repetition's transfer rates (docs/MEASUREMENT.md "Transfer
// throughput"; "-" for other workloads or when not measured). session_setup_p50_us is the median
// WAMP session establishment, TCP connect to WELCOME (docs/MEASUREMENT.md "Session
// establishment"; "-" for HTTP). flags, always last, is the union
// of the repetitions' flags, comma-separated, "-" for none.
std::string result_line(const std::string& scenario, const results::WorkloadResult& w,
                        const std::string& run) {
  const bool measured = !w.repetitions.empty();
  const bool bytes = measured && w.measured("bytes_received");
  const double wire = bytes ? w.bytes_per_second().median : 0;
  const std::string rps = measured ? fmt::format("{:.0f}", w.ops_per_second().median) : "-";
  const std::string mbps = bytes ? fmt::format("{:.3f}", wire / 1e6) : "-";
  const std::string gbps = bytes ? fmt::format("{:.3f}", wire * 8 / 1e9) : "-";
  const std::string wire_bytes = bytes ? fmt::format("{:.0f}", wire) : "-";
  const auto payload = w.payload_bytes_per_second();
  const std::string payload_bytes = payload ? fmt::format("{:.0f}", payload->median) : "-";
  const auto error_count = measured_errors(w);
  const std::string errors = error_count ? std::to_string(*error_count) : "-";
  // What a WAMP workload sends, so rows compare by field rather than by workload name; an
  // HTTP workload has no transport or serializer to choose and sends no WAMP payload: "-".
  const bool wamp = !scenario::is_http(w.spec.protocol);
  const std::string transport = wamp ? w.spec.wamp.transport : "-";
  const std::string serializer = wamp ? w.spec.wamp.serializer : "-";
  const std::string payload_size = wamp ? std::to_string(w.spec.wamp.request_bytes) : "-";
  const auto tls = w.tls();
  const auto setup = w.setup();
  const auto resumed = setup ? results::resumed_handshakes(w.spec, *setup) : std::nullopt;
  const uint32_t requested = w.requested_streams();
  const uint32_t effective = w.effective_streams();
  // The union of the repetitions' flags, comma-separated, in docs/MEASUREMENT.md's order
  // ("router_count_mismatch,degraded").
  std::string flags;
  for (const auto& flag : w.flags()) flags += (flags.empty() ? "" : ",") + flag;
  if (flags.empty()) flags = "-";
  const auto handshakes = w.handshakes_per_second();
  const auto data_gbps = w.transfer_data_gbps();
  const auto lifecycle_gbps = w.transfer_lifecycle_gbps();
  const bool transfer = w.spec.protocol == scenario::Protocol::kWampTransfer;
  // WAMP sessions' connect to WELCOME, median of every repetition's merged; "-" when none.
  const auto sessions = w.session_setup();
  const std::string session_setup =
      sessions && sessions->total_count() > 0
          ? fmt::format("{:.1f}", static_cast<double>(sessions->value_at_percentile(50)) / 1000.0)
          : "-";
  return fmt::format(
      "RESULT|scenario={}|workload={}|variant={}|protocol={}|connections={}|workers={}|threads={}"
      "|rps={}|mbps={}|p50_us={}|p90_us={}|p99_us={}|p999_us={}|max_us={}|errors={}|reps={}"
      "|run={}|status={}|gbps={}|wire_bytes_per_s={}|payload_bytes_per_s={}|transport={}"
      "|serializer={}|payload_bytes={}|tls={}|alpn={}|streams={}|effective_streams={}"
      "|connect_p50_us={}|handshake_p50_us={}|ttfb_p50_us={}|handshakes_per_s={}|resumed={}"
      "|load_from={}|transfer_bytes={}|chunk_bytes={}|data_window_gbps={}|lifecycle_gbps={}"
      "|session_setup_p50_us={}|flags={}",
      scenario, w.spec.name, w.variant, scenario::to_string(w.spec.protocol), w.spec.sessions(),
      w.spec.workers, w.spec.threads, rps, mbps, micros(w, 50), micros(w, 90), micros(w, 99),
      micros(w, 99.9), micros(w, 100), errors, w.repetitions.size(), run,
      results::status_name(w.status), gbps, wire_bytes, payload_bytes, transport, serializer,
      payload_size, tls ? tls->version : "-", tls && !tls->alpn.empty() ? tls->alpn : "-",
      requested > 0 ? std::to_string(requested) : "-",
      effective > 0 ? std::to_string(effective) : "-",
      setup_micros(setup, &results::ConnectionSetup::connect, 50),
      setup_micros(setup, &results::ConnectionSetup::tls_handshake, 50),
      setup_micros(setup, &results::ConnectionSetup::ttfb, 50),
      handshakes ? fmt::format("{:.0f}", handshakes->median) : "-",
      resumed ? std::to_string(*resumed) : "-", w.load_from.empty() ? "-" : w.load_from,
      transfer ? std::to_string(w.spec.wamp.transfer_bytes) : "-",
      transfer ? std::to_string(w.spec.wamp.chunk_bytes) : "-",
      data_gbps ? fmt::format("{:.3f}", data_gbps->median) : "-",
      lifecycle_gbps ? fmt::format("{:.3f}", lifecycle_gbps->median) : "-", session_setup, flags);
}

}  // namespace benchgate::report
