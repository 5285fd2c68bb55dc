// The OpenSSL server context of a TLS listener (Boost.Asio's ssl::context), made once per
// listener at start-up and shared read-only by its connections: the certificate and key,
// versions (--tls-min-version up to TLS 1.3), ciphers (TLS 1.3: kDefaultCiphersuites unless
// --tls-ciphersuites), no renegotiation, the server's cipher preference, buffers released while a
// connection is idle, session resumption (OpenSSL's server-side cache and TLS 1.3 tickets), and
// ALPN: the protocols the port serves, in the server's order of preference. A client offering ALPN
// with none of them is refused with the no_application_protocol alert; a client offering none gets
// the port's protocol anyway.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <boost/asio/ssl/context.hpp>

#include "common/util/expected.h"
#include "router/tls/tls_options.h"

namespace benchgate::router::tls {

using ServerContext = boost::asio::ssl::context;

// The TLS 1.3 suites without --tls-ciphersuites: OpenSSL's three, AES-128-GCM first. With the
// server's preference deciding, OpenSSL's own order (AES-256-GCM-SHA384 first) would make every
// handshake hash with SHA-384, which has no instructions of its own on x86-64 CPUs (SHA-256
// has), where nginx, following its clients' order by default, gets AES-128-GCM-SHA256 from
// h2load, curl and browsers alike. TLS_AES_128_GCM_SHA256 is the suite every TLS 1.3
// implementation must support (RFC 8446, 9.1).
inline constexpr const char* kDefaultCiphersuites =
    "TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256";

// `alpn` empty: the context takes part in no ALPN negotiation (RawSocket has no registered
// protocol name). The error names the file and what OpenSSL said ("--tls-key router.key: ...").
Expected<std::shared_ptr<ServerContext>> make_server_context(const TlsOptions& options,
                                                             std::vector<std::string> alpn);

// "1.2" -> TLS1_2_VERSION, "1.3" -> TLS1_3_VERSION; 0 for anything else.
int parse_tls_version(const std::string& text);

}  // namespace benchgate::router::tls
