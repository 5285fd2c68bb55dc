// The TLS settings of the router's listeners, already parsed (see router/app/config.h): with a
// certificate, every listener (HTTP, WebSocket, RawSocket) speaks TLS only.
#pragma once

#include <cstdint>
#include <string>

namespace benchgate::router::tls {

struct TlsOptions {
  // PEM files: the certificate chain (leaf first) and its private key.
  std::string cert_file;
  std::string key_file;
  // The lowest version accepted: TLS1_2_VERSION or TLS1_3_VERSION (OpenSSL's constants).
  int min_version = 0;
  // The TLS 1.2 cipher list and the TLS 1.3 cipher suites, in OpenSSL's syntax; empty:
  // OpenSSL's defaults.
  std::string ciphers;
  std::string ciphersuites;
  // A handshake not finished this long after the connection was accepted is closed (counted
  // as tls_handshake_failures{reason="timeout"}).
  int64_t handshake_timeout_ns = 10'000'000'000;
  // TLS 1.3 session tickets sent after each handshake (a client resumes with one; a resumed
  // handshake gets new ones). 0: no TLS 1.3 resumption.
  int session_tickets = 1;
};

}  // namespace benchgate::router::tls
