// What a TLS client's failed handshake says, where OpenSSL's own error names the symptom but
// not its cause: one definition for every TLS client of the worker (HTTP/1.1, HTTP/2, wss and
// RawSocket over TLS), whose connect errors read "cannot connect to ADDRESS: <message>".
//
// - A certificate that failed verification ("certificate verify failed (SSL routines)" alone)
//   names OpenSSL's verify result: "certificate verify failed: self-signed certificate",
//   "... : hostname mismatch", with a hint at the scenario key to check.
// - A server that did not answer with TLS ("wrong version number", "packet length too long":
//   its first bytes are no TLS record) keeps OpenSSL's words and adds what they likely mean.
// - An HTTP/1.1 connection whose server selected another protocol by ALPN (h2): the request
//   would be HTTP/1.1 inside a connection the server reads as h2. Likewise a WAMP WebSocket's
//   Upgrade request.
#pragma once

#include <openssl/ssl.h>

#include <boost/system/error_code.hpp>

namespace benchgate::tls {

// The error a client reports for its handshake on `ssl` that failed with `ec`: a category of
// this file where it can say more (above), else `ec` as it is.
boost::system::error_code client_handshake_error(SSL* ssl, const boost::system::error_code& ec);

// After a client's handshake that succeeded: an error when the server selected by ALPN a
// protocol other than http/1.1 (none selected is HTTP/1.1 by default), else none.
boost::system::error_code http11_alpn_error(SSL* ssl);
// The same rule for a WAMP WebSocket (wss) client, whose session opens with an HTTP/1.1
// Upgrade: its message says so. (RawSocket over TLS has no ALPN name and takes any protocol the
// server selected from the workload's alpn, or none: its own handshake tells a WAMP peer.)
boost::system::error_code websocket_alpn_error(SSL* ssl);

}  // namespace benchgate::tls
