// TLS for the worker's HTTP connections (HTTP/1.1 and HTTP/2) through OpenSSL 3 and Boost.Asio's
// ssl streams: one client context per workload, shared read-only by every connection, and what a
// handshake negotiated, as the peer chose it.
#pragma once

#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/util/expected.h"
#include "worker/engine/window_result.h"
#include "worker/engine/workload.h"

namespace benchgate::worker::http {

// The client context for `tls`: versions, ciphers, verification (on unless tls.insecure;
// against tls.ca_pem or the system's CAs) and ALPN (tls.alpn, else `default_alpn`). An error
// names what OpenSSL refused ("ciphers 'X' match no cipher").
Expected<std::shared_ptr<boost::asio::ssl::context>> make_client_context(
    const TlsSpec& tls, const std::vector<std::string>& default_alpn);

// Sets SNI and the host name verification of one connection's SSL object before its handshake.
// `sni` empty: no SNI; `verify_host` an IP address is matched against the certificate's IP SANs.
void prepare_connection(SSL* ssl, const std::string& sni, const std::string& verify_host);

// Version, cipher and ALPN of a finished handshake.
NegotiatedTls negotiated(SSL* ssl);

// The ALPN protocol the peer selected ("" when none).
std::string_view selected_alpn(SSL* ssl);

}  // namespace benchgate::worker::http
