// The OpenSSL server context of a TLS listener (Boost.Asio's ssl::context), made once per
// listener at start-up and shared read-only by its connections: the certificate and key,
// versions (--tls-min-version up to TLS 1.3), ciphers, no renegotiation, the server's cipher
// preference, buffers released while a connection is idle, session resumption (OpenSSL's
// server-side cache and TLS 1.3 tickets), and ALPN: the protocols the port serves, in the
// server's order of preference. A client offering ALPN with none of them is refused with the
// no_application_protocol alert; a client offering none gets the port's protocol anyway.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <boost/asio/ssl/context.hpp>

#include "common/util/expected.h"
#include "router/tls/tls_options.h"

namespace benchgate::router::tls {

using ServerContext = boost::asio::ssl::context;

// `alpn` empty: the context takes part in no ALPN negotiation (RawSocket has no registered
// protocol name). The error names the file and what OpenSSL said ("--tls-key router.key: ...").
Expected<std::shared_ptr<ServerContext>> make_server_context(const TlsOptions& options,
                                                             std::vector<std::string> alpn);

// "1.2" -> TLS1_2_VERSION, "1.3" -> TLS1_3_VERSION; 0 for anything else.
int parse_tls_version(const std::string& text);

}  // namespace benchgate::router::tls
