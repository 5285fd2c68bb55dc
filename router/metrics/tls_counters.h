// The router's TLS counters, one instance per listener and serving thread (the HTTP serving
// threads own one each, the WAMP thread one per transport), each with one writer: handshakes
// completed by negotiated version and ALPN, of those the ones that resumed a session (by version),
// and handshakes that failed, by reason. Summed with
// add() into the snapshot (router/metrics/snapshot.h).
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace benchgate::router::metrics {

// The listener a TLS connection came in on (the "listener" label).
enum class TlsListener : uint8_t { http = 0, websocket = 1, rawsocket = 2 };
inline constexpr int kTlsListeners = 3;
std::string_view tls_listener_label(TlsListener listener);  // "http", "websocket", "rawsocket"

// The version a handshake negotiated (the "version" label).
enum class TlsVersion : uint8_t { tls1_2 = 0, tls1_3 = 1 };
inline constexpr int kTlsVersions = 2;
std::string_view tls_version_label(TlsVersion version);  // "1.2", "1.3"

// What ALPN chose (the "alpn" label): nothing (the client offered none), http/1.1, or h2.
enum class TlsAlpn : uint8_t { none = 0, http1_1 = 1, h2 = 2 };
inline constexpr int kTlsAlpns = 3;
std::string_view tls_alpn_label(TlsAlpn alpn);  // "none", "http/1.1", "h2"

// Why a handshake failed (the "reason" label of tls_handshake_failures).
enum class TlsFailure : uint8_t {
  // Not finished within --tls-handshake-timeout (a client that sends nothing, or part of a
  // ClientHello): closed.
  timeout = 0,
  // The peer closed or reset the connection during the handshake.
  peer_closed = 1,
  // What arrived is not TLS (a cleartext HTTP request, a RawSocket hello, noise).
  not_tls = 2,
  // No version both accept (below --tls-min-version, or above what the router speaks).
  protocol_version = 3,
  // No cipher both accept (--tls-ciphers, --tls-ciphersuites).
  no_shared_cipher = 4,
  // The client offered ALPN protocols and none of them is served on this port.
  no_application_protocol = 5,
  // The client refused the router's certificate (an alert: unknown CA, bad certificate).
  certificate_rejected = 6,
  // Any other handshake error.
  other = 7,
};
inline constexpr int kTlsFailures = 8;
std::string_view tls_failure_label(TlsFailure failure);

struct TlsCounters {
  // Handshakes completed, by negotiated version and ALPN.
  std::array<std::array<uint64_t, kTlsAlpns>, kTlsVersions> handshakes{};
  // Of those, the abbreviated handshakes that resumed a session the client offered (a TLS 1.2
  // session id or ticket, a TLS 1.3 ticket), by version.
  std::array<uint64_t, kTlsVersions> resumed{};
  std::array<uint64_t, kTlsFailures> failures{};

  void count_handshake(TlsVersion version, TlsAlpn alpn, bool session_resumed) {
    ++handshakes[static_cast<size_t>(version)][static_cast<size_t>(alpn)];
    if (session_resumed) ++resumed[static_cast<size_t>(version)];
  }
  void count_failure(TlsFailure failure) { ++failures[static_cast<size_t>(failure)]; }
  uint64_t total_handshakes() const;
  uint64_t total_resumed() const;
  uint64_t total_failures() const;
  void add(const TlsCounters& other);
};

// Per listener, as the snapshot holds them.
using TlsCountersByListener = std::array<TlsCounters, kTlsListeners>;

}  // namespace benchgate::router::metrics
