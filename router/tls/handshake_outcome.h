// What a server-side TLS handshake came to, as the TLS counters (router/metrics/tls_counters.h)
// count it: the negotiated version and ALPN of one that completed, the reason one failed.
#pragma once

#include <openssl/ssl.h>

#include <boost/system/error_code.hpp>

#include "router/metrics/tls_counters.h"

namespace benchgate::router::tls {

// The failure reason of a handshake that ended with `ec` (not a timeout: the caller knows).
metrics::TlsFailure classify_handshake_error(const boost::system::error_code& ec);

// Counts a completed handshake of `ssl` and returns the ALPN it chose.
metrics::TlsAlpn count_handshake(SSL* ssl, metrics::TlsCounters& counters);

}  // namespace benchgate::router::tls
