#include "worker/service/proto_convert.h"

#include <map>
#include <string>
#include <vector>

namespace benchgate::worker {
namespace {

void histogram_to_proto(const HdrHistogram& histogram, v1::Histogram* proto) {
  const std::vector<uint8_t> bytes = histogram.encode_compressed();
  proto->set_hdr_v2_compressed(std::string(bytes.begin(), bytes.end()));
}

void tool_latency_to_proto(const ToolLatency& latency, v1::ToolLatency* proto) {
  proto->set_tool(latency.tool);
  if (latency.min_ns) proto->set_min_ns(*latency.min_ns);
  if (latency.mean_ns) proto->set_mean_ns(*latency.mean_ns);
  if (latency.stdev_ns) proto->set_stdev_ns(*latency.stdev_ns);
  if (latency.max_ns) proto->set_max_ns(*latency.max_ns);
  for (const auto& [key, ns] : latency.percentiles_ns) (*proto->mutable_percentiles_ns())[key] = ns;
}

}  // namespace

// Names outside the documented sets are kept in `invalid` for validate_workload to report.
WampRequestSpec wamp_from_proto(const v1::WampSpec& proto) {
  using W = WampRequestSpec;
  W w;
  auto bad = [&](const std::string& field, const std::string& value, const char* allowed) {
    if (w.invalid.empty()) {
      w.invalid = "wamp." + field + " '" + value + "' is not one of " + allowed;
    }
  };
  if (proto.kind() == "pubsub") {
    w.kind = W::Kind::kPubSub;
  } else if (proto.kind() == "transfer") {
    w.kind = W::Kind::kTransfer;
  } else if (proto.kind() != "rpc" && !proto.kind().empty()) {
    bad("kind", proto.kind(), "rpc, pubsub, transfer");
  }
  if (proto.transport() == "rawsocket") {
    w.transport = W::Transport::kRawSocket;
  } else if (proto.transport() != "websocket" && !proto.transport().empty()) {
    bad("transport", proto.transport(), "websocket, rawsocket");
  }
  if (proto.serializer() == "msgpack") {
    w.serializer = W::Serializer::kMsgpack;
  } else if (proto.serializer() == "cbor") {
    w.serializer = W::Serializer::kCbor;
  } else if (proto.serializer() != "json" && !proto.serializer().empty()) {
    bad("serializer", proto.serializer(), "json, msgpack, cbor");
  }
  if (proto.callee() == "worker") {
    w.worker_callee = true;
  } else if (proto.callee() != "router" && !proto.callee().empty()) {
    bad("callee", proto.callee(), "router, worker");
  }
  if (!proto.realm().empty()) w.realm = proto.realm();
  if (w.kind == W::Kind::kTransfer) w.procedure = "bench.transfer";  // the router's own
  if (!proto.procedure().empty()) w.procedure = proto.procedure();
  if (!proto.topic().empty()) w.topic = proto.topic();
  w.publishers = proto.publishers();
  w.subscribers = proto.subscribers();
  w.request_bytes = proto.request_bytes();
  w.fragment_bytes = proto.fragment_bytes();
  w.transfer_bytes = proto.transfer_bytes();
  w.chunk_bytes = proto.chunk_bytes();
  w.session_per_operation = proto.session_per_operation();
  if (proto.callee_sessions() > 0) w.callee_sessions = proto.callee_sessions();
  if (!proto.invoke().empty()) w.invoke = proto.invoke();
  w.callee_delay_ns = proto.callee_delay_ns();
  w.call_timeout_ms = proto.call_timeout_ms();
  w.cancel_after_ns = proto.cancel_after_ns();
  if (!proto.cancel_mode().empty()) w.cancel_mode = proto.cancel_mode();
  w.acknowledge = proto.acknowledge();
  if (proto.has_auth()) {
    w.auth.method = proto.auth().method();
    w.auth.authid = proto.auth().authid();
    w.auth.secret = proto.auth().secret();
  }
  return w;
}

WorkloadSpec workload_from_proto(const v1::WorkloadSpec& proto) {
  WorkloadSpec spec;
  spec.name = proto.name();
  spec.protocol = proto.protocol();
  spec.address = proto.address();
  spec.connections = proto.connections();
  spec.threads = proto.threads();
  spec.in_flight = proto.in_flight();
  spec.rate = proto.rate();
  spec.progress_interval_ns = proto.progress_interval_ns();
  spec.drain_timeout_ns = proto.drain_timeout_ns();
  spec.connect_timeout_ns = proto.connect_timeout_ns();
  spec.schedule_first = proto.schedule_first();
  spec.schedule_connections = proto.schedule_connections();
  spec.new_connection_per_request = proto.new_connection_per_request();
  if (proto.has_tls()) {
    const v1::TlsSpec& tls = proto.tls();
    spec.tls.enabled = true;
    spec.tls.version = tls.version();
    spec.tls.ciphers = tls.ciphers();
    spec.tls.sni = tls.sni();
    spec.tls.ca_pem = tls.ca_pem();
    spec.tls.insecure = tls.insecure();
    spec.tls.resumption = tls.resumption();
    spec.tls.alpn.assign(tls.alpn().begin(), tls.alpn().end());
  }
  if (proto.has_http2()) {
    const v1::Http2Spec& h2 = proto.http2();
    if (h2.streams() != 0) spec.http2.streams = h2.streams();
    if (h2.initial_window() != 0) spec.http2.initial_window = h2.initial_window();
    if (h2.max_frame_size() != 0) spec.http2.max_frame_size = h2.max_frame_size();
  }
  if (proto.has_wamp()) {
    spec.wamp = wamp_from_proto(proto.wamp());
    if (spec.wamp.kind == WampRequestSpec::Kind::kPubSub) {
      spec.connections = spec.wamp.publishers + spec.wamp.subscribers;
    }
  } else if (spec.is_wamp()) {
    spec.wamp.invalid = "protocol " + spec.protocol + " needs the wamp part of the WorkloadSpec";
  }
  if (proto.has_http()) {
    const v1::HttpSpec& http = proto.http();
    if (!http.method().empty()) spec.http.method = http.method();
    if (!http.target().empty()) spec.http.target = http.target();
    spec.http.host = http.host();
    spec.http.request_body_bytes = http.request_body_bytes();
    if (http.expect_status() != 0) spec.http.expect_status = http.expect_status();
    spec.http.expect_body_bytes = http.has_expect_body_bytes() ? http.expect_body_bytes() : -1;
    spec.http.expect_echo = http.expect_echo();
    // Sorted, so the request bytes do not depend on the map's iteration order.
    std::map<std::string, std::string> sorted(http.headers().begin(), http.headers().end());
    spec.http.headers.assign(sorted.begin(), sorted.end());
  }
  return spec;
}

WindowCommand window_from_proto(const v1::Window& proto) {
  WindowCommand window;
  window.index = proto.index();
  window.measured = proto.measured();
  window.start_at_unix_ns = proto.start_at_unix_ns();
  window.start_at_worker_ns = proto.start_at_worker_ns();
  window.duration_ns = proto.duration_ns();
  return window;
}

void progress_to_proto(const ProgressReport& report, v1::Progress* proto) {
  proto->set_window(report.window);
  proto->set_interval_ns(report.interval_ns);
  proto->set_operations(report.operations);
  proto->set_errors(report.errors);
  histogram_to_proto(report.latency, proto->mutable_latency());
}

void result_to_proto(const WindowResult& result, v1::WindowResult* proto) {
  proto->set_window(result.window);
  proto->set_operations(result.operations);
  proto->set_successes(result.successes);
  for (size_t k = 0; k < kErrorKindCount; ++k) {
    if (result.errors[k] != 0) {
      (*proto->mutable_errors())[std::string(kErrorKindNames[k])] = result.errors[k];
    }
  }
  proto->set_bytes_sent(result.bytes_sent);
  proto->set_bytes_received(result.bytes_received);
  proto->set_first_send_unix_ns(result.first_send_unix_ns);
  proto->set_last_receive_unix_ns(result.last_receive_unix_ns);
  if (result.tool_latency) {
    tool_latency_to_proto(*result.tool_latency, proto->mutable_tool_latency());
  } else {
    histogram_to_proto(result.latency, proto->mutable_latency());
  }
  if (result.open_loop) {
    histogram_to_proto(result.service_time, proto->mutable_service_time());
    proto->set_late_sends(result.late_sends);
    proto->set_unsent(result.unsent);
  }
  proto->set_cpu_user_ns(result.cpu_user_ns);
  proto->set_cpu_system_ns(result.cpu_system_ns);
  proto->set_wall_ns(result.wall_ns);
  proto->set_threads(result.threads);
  if (result.pubsub) {
    proto->set_events_expected(result.events_expected);
    proto->set_events_delivered(result.events_delivered);
  }
  if (result.session_setup) {
    histogram_to_proto(*result.session_setup, proto->mutable_session_setup());
  }
  for (const uint64_t n : result.callee_invocations) proto->add_callee_invocations(n);
  for (const SessionEnd& e : result.sessions_ended) {
    auto* end = proto->add_sessions_ended();
    end->set_reason(e.reason);
    end->set_sessions(e.sessions);
  }
  if (result.transfer) {
    v1::WampTransfer* transfer = proto->mutable_transfer();
    transfer->set_transfers(result.transfer->transfers);
    transfer->set_data_bytes(result.transfer->data_bytes);
    transfer->set_data_ns(result.transfer->data_ns);
    transfer->set_lifecycle_bytes(result.transfer->lifecycle_bytes);
    transfer->set_lifecycle_ns(result.transfer->lifecycle_ns);
  }
  if (result.setup) {
    v1::ConnectionSetup* setup = proto->mutable_setup();
    setup->set_connections(result.setup->connections);
    setup->set_handshakes(result.setup->handshakes);
    setup->set_resumed(result.setup->resumed);
    histogram_to_proto(result.setup->connect, setup->mutable_connect());
    histogram_to_proto(result.setup->tls_handshake, setup->mutable_tls_handshake());
    histogram_to_proto(result.setup->ttfb, setup->mutable_ttfb());
  }
  if (result.tls) {
    v1::NegotiatedTls* tls = proto->mutable_tls();
    tls->set_version(result.tls->version);
    tls->set_cipher(result.tls->cipher);
    tls->set_alpn(result.tls->alpn);
  }
  proto->set_requested_streams(result.requested_streams);
  proto->set_effective_streams(result.effective_streams);
  proto->set_window_connections(result.window_connections);
  for (const std::string& name : result.not_measured) proto->add_not_measured(name);
  if (result.in_window_measured) {
    auto* in_window = proto->mutable_in_window();
    in_window->set_successes(result.window_successes);
    in_window->set_bytes_received(result.window_bytes_received);
    in_window->set_payload_bytes(result.window_payload_bytes);
  }
  proto->set_started_unix_ns(result.started_unix_ns);
  proto->set_started_worker_ns(result.started_steady_ns);
  for (const ThreadCpu& cpu : result.thread_cpu) {
    auto* out = proto->add_thread_cpu();
    out->set_cpu_ns(cpu.cpu_ns);
    if (cpu.run_delay_ns) out->set_run_delay_ns(*cpu.run_delay_ns);
    out->set_wall_ns(cpu.wall_ns);
  }
  proto->set_latency_clamped(result.latency_clamped);
}

}  // namespace benchgate::worker
