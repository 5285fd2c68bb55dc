// Labels and summing of TLS counters (see tls_counters.h).
#include "router/metrics/tls_counters.h"

namespace benchgate::router::metrics {

std::string_view tls_listener_label(TlsListener listener) {
  switch (listener) {
    case TlsListener::http:
      return "http";
    case TlsListener::websocket:
      return "websocket";
    case TlsListener::rawsocket:
      return "rawsocket";
  }
  return "http";
}

std::string_view tls_version_label(TlsVersion version) {
  return version == TlsVersion::tls1_2 ? "1.2" : "1.3";
}

std::string_view tls_alpn_label(TlsAlpn alpn) {
  switch (alpn) {
    case TlsAlpn::none:
      return "none";
    case TlsAlpn::http1_1:
      return "http/1.1";
    case TlsAlpn::h2:
      return "h2";
  }
  return "none";
}

std::string_view tls_failure_label(TlsFailure failure) {
  switch (failure) {
    case TlsFailure::timeout:
      return "timeout";
    case TlsFailure::peer_closed:
      return "peer_closed";
    case TlsFailure::not_tls:
      return "not_tls";
    case TlsFailure::protocol_version:
      return "protocol_version";
    case TlsFailure::no_shared_cipher:
      return "no_shared_cipher";
    case TlsFailure::no_application_protocol:
      return "no_application_protocol";
    case TlsFailure::certificate_rejected:
      return "certificate_rejected";
    case TlsFailure::other:
      return "other";
  }
  return "other";
}

uint64_t TlsCounters::total_handshakes() const {
  uint64_t total = 0;
  for (const auto& by_alpn : handshakes) {
    for (uint64_t value : by_alpn) total += value;
  }
  return total;
}

uint64_t TlsCounters::total_resumed() const {
  uint64_t total = 0;
  for (uint64_t value : resumed) total += value;
  return total;
}

uint64_t TlsCounters::total_failures() const {
  uint64_t total = 0;
  for (uint64_t value : failures) total += value;
  return total;
}

void TlsCounters::add(const TlsCounters& other) {
  for (size_t v = 0; v < handshakes.size(); ++v) {
    for (size_t a = 0; a < handshakes[v].size(); ++a) handshakes[v][a] += other.handshakes[v][a];
  }
  for (size_t v = 0; v < resumed.size(); ++v) resumed[v] += other.resumed[v];
  for (size_t f = 0; f < failures.size(); ++f) failures[f] += other.failures[f];
}

}  // namespace benchgate::router::metrics
