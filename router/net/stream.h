// The byte stream under every router connection, and the steps that depend on what it is:
// the HTTP/1.1 session (router/http/session.h) and both WAMP transports
// (router/wamp/transport_connection.h; WebSocket layers Beast's websocket::stream on it) own
// one Stream and close it through these functions only.
//
// Plain TCP today. Where TLS goes (docs/ARCHITECTURE.md, "Connections"): a listener with a
// certificate gives its connections a boost::asio::ssl::stream<tcp::socket> instead (the
// connection classes then take the stream type as a template parameter, as
// TransportConnection already does), and its steps are written here, once, as overloads for
// that type:
//   - the TLS handshake, started by the connection's start() under its opening timer (the
//     WAMP handshake timeout, the HTTP idle deadline), before the transport's own handshake;
//   - half_close(): close_notify (async_shutdown) instead of a TCP shutdown of the send side;
//   - close_stream(): closes the socket under the TLS layer, as now.
// The read paths that wait for readability and then read what the socket has (HTTP,
// RawSocket: that is what lets an idle connection hold no buffer) must also look at what the
// TLS layer already decrypted (SSL_pending) before waiting again.
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/stream_traits.hpp>

namespace benchgate::router::net {

using Stream = boost::asio::ip::tcp::socket;

// Closes the socket under `stream` (a Stream, or a layer such as websocket::stream over one)
// now; pending operations complete with operation_aborted. Idempotent, errors ignored.
template <typename Layered>
void close_stream(Layered& stream) {
  boost::system::error_code ignored;
  boost::beast::get_lowest_layer(stream).close(ignored);
}

// Stops sending: the peer reads everything written so far, then end of stream.
inline void half_close(Stream& stream) {
  boost::system::error_code ignored;
  stream.shutdown(Stream::shutdown_send, ignored);
}

}  // namespace benchgate::router::net
