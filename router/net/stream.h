// The byte stream under every router connection, and the steps that depend on what it is:
// the HTTP/1.1 session (router/http/session.h) and both WAMP transports
// (router/wamp/transport_connection.h; WebSocket layers Beast's websocket::stream on it) own
// one stream and close it through these functions only.
//
// Two kinds (docs/ARCHITECTURE.md, "Connections"): Stream, plain TCP, and TlsStream, OpenSSL
// on the same socket's descriptor (common/tls/tls_stream.h), for a listener with a
// certificate (router/tls/). The connection classes take the stream type as a template parameter
// and branch on is_tls_v at compile time for the steps that differ:
//   - the TLS handshake, started by the connection's start() under its opening timer
//     (--tls-handshake-timeout), before the transport's own handshake;
//   - the graceful close: a TCP shutdown of the send side, or close_notify (async_shutdown,
//     which also discards what the peer still sends until it closes);
//   - close_stream(): closes the socket under the TLS layer, as for TCP;
//   - the read paths that wait for readability and then read what the socket has (HTTP,
//     RawSocket: that is what lets an idle connection hold no buffer) first ask
//     has_buffered_input(): what the TLS layer already holds (decrypted, or whole records
//     received and not yet decrypted, or an end of stream met after the last read's bytes)
//     never makes the socket readable again;
//   - a synchronous write (write_some on the non-blocking socket) is safe on both: what the
//     socket did not take of a TLS record stays with OpenSSL, and the asynchronous write of
//     the rest, which starts at the first byte not reported written, sends it first.
#pragma once

#include <span>
#include <type_traits>
#include <utility>

#include <boost/asio/buffer.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/stream_traits.hpp>

#include "common/net/gathered_write.h"
#include "common/tls/tls_stream.h"

namespace benchgate::router::net {

// A TCP socket on its io_context's own executor rather than Asio's type-erased default
// (tcp::socket): 40 bytes instead of 88 in every connection, and 48 fewer in each operation
// queued for it (issue 19, goal 2: memory per idle connection). Every router socket belongs
// to an io_context run by one thread.
using Stream =
    boost::asio::basic_stream_socket<boost::asio::ip::tcp, boost::asio::io_context::executor_type>;
using TlsStream = ::benchgate::tls::TlsStream<Stream>;
using ::benchgate::tls::has_buffered_input;

// Whether `S` (a stream, or a layer such as websocket::stream over one) runs over TLS.
template <typename S>
constexpr bool is_tls() {
  if constexpr (std::is_same_v<S, TlsStream>) {
    return true;
  } else if constexpr (requires(S & s) { s.next_layer(); }) {
    return is_tls<std::remove_cvref_t<decltype(std::declval<S&>().next_layer())>>();
  } else {
    return false;
  }
}
template <typename S>
inline constexpr bool is_tls_v = is_tls<S>();

// The TLS layer of a TLS stream or of a layer over one.
template <typename S>
TlsStream& tls_layer(S& stream) {
  static_assert(is_tls_v<S>);
  if constexpr (std::is_same_v<S, TlsStream>) {
    return stream;
  } else {
    return tls_layer(stream.next_layer());
  }
}

// Closes the socket under `stream` now; pending operations complete with operation_aborted.
// Idempotent, errors ignored.
template <typename Layered>
void close_stream(Layered& stream) {
  boost::system::error_code ignored;
  boost::beast::get_lowest_layer(stream).close(ignored);
}

// Stops sending (plain TCP): the peer reads everything written so far, then end of stream.
inline void half_close(Stream& stream) {
  boost::system::error_code ignored;
  stream.shutdown(Stream::shutdown_send, ignored);
}

// Writes all of `buffers` (valid until the handler runs); handler(error_code, size_t). Over
// TCP up to 256 buffers per send (common/net/gathered_write.h); over TLS the stream's own
// write, which gathers small buffers from the whole list into records of up to 16 KiB
// (common/tls/tls_stream.h). Where asio::async_write hands each send 16 buffers, 8 messages.
template <typename Handler>
void async_write_all(Stream& stream, std::span<const boost::asio::const_buffer> buffers,
                     Handler&& handler) {
  ::benchgate::net::async_write_gathered(stream, buffers, std::forward<Handler>(handler));
}
template <typename Handler>
void async_write_all(TlsStream& stream, std::span<const boost::asio::const_buffer> buffers,
                     Handler&& handler) {
  stream.async_write_all(buffers, std::forward<Handler>(handler));
}

// Whether a read can return something without the socket becoming readable: what the TLS
// layer holds (TlsStream::has_buffered_input in tls_stream.h). Always false for TCP.
inline bool has_buffered_input(Stream&) { return false; }

}  // namespace benchgate::router::net
