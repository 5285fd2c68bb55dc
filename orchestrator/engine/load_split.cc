#include "orchestrator/engine/load_split.h"

#include <algorithm>

#include "orchestrator/engine/timeline.h"

namespace benchgate::engine {

std::vector<WorkerShare> split_load(const scenario::Workload& workload) {
  const uint32_t workers = std::max<uint32_t>(1, workload.workers);
  std::vector<WorkerShare> shares(workers);
  uint32_t first = 0;
  for (uint32_t i = 0; i < workers; ++i) {
    auto& share = shares[i];
    share.connections = workload.connections / workers + (i < workload.connections % workers);
    share.threads = std::min(workload.threads, std::max<uint32_t>(1, share.connections));
    share.rate = workload.rate * share.connections / workload.connections;
    share.index = i;
    share.first_connection = first;
    share.total_connections = workload.connections;
    first += share.connections;
  }
  return shares;
}

Expected<std::string> target_address(const scenario::Workload& workload,
                                     const sut::SystemUnderTest& sut) {
  if (scenario::is_http(workload.protocol)) return sut.address();
  return sut.wamp_address(workload.wamp.transport);
}

uint64_t router_operation_count(const scenario::Workload& workload,
                                const sut::MetricsSnapshot& delta) {
  const char* counter = nullptr;
  switch (workload.protocol) {
    case scenario::Protocol::kHttp1:
    case scenario::Protocol::kHttp2:
      return delta.requests;
    case scenario::Protocol::kWampRpc:
    case scenario::Protocol::kWampTransfer:  // one bench.transfer CALL per operation
      counter = "wamp_calls_routed";
      break;
    case scenario::Protocol::kWampPubSub:
      counter = "wamp_events_delivered";
      break;
  }
  auto it = delta.counters.find(counter);
  return it == delta.counters.end() ? 0 : it->second;
}

namespace {

void set_wamp(const scenario::Workload& workload, const WorkerShare& share,
              v1::WorkloadSpec& spec) {
  const scenario::WampRequest& w = workload.wamp;
  const bool pubsub = workload.protocol == scenario::Protocol::kWampPubSub;
  auto* wamp = spec.mutable_wamp();
  const bool transfer = workload.protocol == scenario::Protocol::kWampTransfer;
  wamp->set_kind(pubsub ? "pubsub" : transfer ? "transfer" : "rpc");
  wamp->set_transport(w.transport);
  wamp->set_serializer(w.serializer);
  wamp->set_realm(w.realm);
  if (!w.auth.method.empty()) {
    wamp->mutable_auth()->set_method(w.auth.method);
    wamp->mutable_auth()->set_authid(w.auth.authid);
    wamp->mutable_auth()->set_secret(w.auth.secret);
  }
  wamp->set_request_bytes(w.request_bytes);
  wamp->set_fragment_bytes(w.fragment_bytes);
  if (pubsub) {
    wamp->set_topic(w.topic);
    wamp->set_publishers(w.publishers);
    wamp->set_subscribers(w.subscribers);
    wamp->set_acknowledge(workload.rate <= 0);  // the closed loop is paced by PUBLISHED
    spec.set_connections(w.publishers + w.subscribers);
    spec.clear_schedule_first();  // one worker: its publishers are the whole schedule
    spec.clear_schedule_connections();
    spec.set_threads(std::min(workload.threads, w.publishers + w.subscribers));
    spec.set_rate(workload.rate);
    return;
  }
  if (transfer) {
    wamp->set_procedure(w.procedure);
    wamp->set_transfer_bytes(w.transfer_bytes);
    wamp->set_chunk_bytes(w.chunk_bytes);
    return;
  }
  wamp->set_callee(w.callee);
  wamp->set_session_per_operation(w.session_per_operation);
  if (w.callee == "worker") {
    wamp->set_callee_sessions(w.callee_sessions);
    wamp->set_invoke(w.invoke);
    wamp->set_callee_delay_ns(w.callee_delay_ns);
  }
  wamp->set_call_timeout_ms(static_cast<uint64_t>(w.call_timeout_ns / 1'000'000));
  wamp->set_cancel_after_ns(w.cancel_after_ns);
  if (w.cancel_after_ns > 0) wamp->set_cancel_mode(w.cancel_mode);
  std::string procedure = w.procedure;
  if (w.callee == "worker" && share.index > 0) procedure += ".w" + std::to_string(share.index);
  wamp->set_procedure(procedure);
}

// The scenario's TLS and HTTP/2 keys as the worker protocol carries them (the CA file's text,
// read by the loader, so a remote worker needs no file).
void set_tls_and_http2(const scenario::Workload& workload, v1::WorkloadSpec& spec) {
  if (workload.tls.enabled) {
    const scenario::TlsSettings& t = workload.tls;
    auto* tls = spec.mutable_tls();
    tls->set_version(t.version);
    tls->set_ciphers(t.ciphers);
    tls->set_sni(t.sni);
    tls->set_ca_pem(t.ca_pem);
    tls->set_insecure(t.insecure);
    tls->set_resumption(t.resumption);
    for (const std::string& name : t.alpn) tls->add_alpn(name);
  }
  if (workload.protocol == scenario::Protocol::kHttp2) {
    auto* h2 = spec.mutable_http2();
    h2->set_streams(workload.http2.streams);
    h2->set_initial_window(workload.http2.initial_window);
    h2->set_max_frame_size(workload.http2.max_frame_size);
  }
}

}  // namespace

v1::WorkloadSpec worker_spec(const scenario::Workload& workload, const WorkerShare& share,
                             const std::string& address, const Expectation& expectation) {
  v1::WorkloadSpec spec;
  spec.set_name(workload.name);
  spec.set_protocol(scenario::to_string(workload.protocol));
  spec.set_address(address);
  spec.set_connections(share.connections);
  spec.set_threads(share.threads);
  spec.set_in_flight(workload.in_flight);
  spec.set_new_connection_per_request(workload.new_connection_per_request);
  spec.set_rate(share.rate);
  if (workload.rate > 0 && share.total_connections > share.connections) {
    spec.set_schedule_first(share.first_connection);
    spec.set_schedule_connections(share.total_connections);
  }
  spec.set_progress_interval_ns(kProgressIntervalNs);
  spec.set_drain_timeout_ns(5'000'000'000);
  spec.set_connect_timeout_ns(10'000'000'000);
  // TLS for every protocol (wss and RawSocket over TLS for WAMP).
  set_tls_and_http2(workload, spec);
  if (!scenario::is_http(workload.protocol)) {
    set_wamp(workload, share, spec);
    return spec;
  }
  auto* http = spec.mutable_http();
  http->set_method(workload.http.method);
  http->set_target(workload.http.target);
  http->set_request_body_bytes(workload.http.request_bytes);
  http->set_expect_status(expectation.status);
  if (expectation.body_bytes >= 0) http->set_expect_body_bytes(expectation.body_bytes);
  http->set_expect_echo(expectation.echo);
  for (const auto& [name, value] : workload.http.headers) (*http->mutable_headers())[name] = value;
  return spec;
}

void use_system_ca(const sut::SystemUnderTest& sut, v1::WorkloadSpec& spec) {
  if (!spec.has_tls() || spec.tls().insecure() || !spec.tls().ca_pem().empty()) return;
  std::string ca = sut.ca_pem();
  if (!ca.empty()) spec.mutable_tls()->set_ca_pem(std::move(ca));
}

}  // namespace benchgate::engine
