// Before a server-side TLS handshake: a TLS client opens with a handshake record, whose first
// byte (its content type) is 22. OpenSSL decides nothing before it holds a whole record header
// of 5 bytes, so a peer that sent fewer bytes of something else and waits for an answer (a
// cleartext RawSocket hello is 4 bytes) would sit until --tls-handshake-timeout and count as a
// timeout. Peeking at the first byte as soon as it arrives tells such a peer from a TLS client
// at once: the connection counts it as not_tls and closes. The WAMP transports peek here
// (a recv(MSG_PEEK) and a readiness wait); the HTTP sessions ask the same of the TLS stream
// (common/tls/tls_stream.h, TlsStream::expect_first_byte), which checks the first byte of
// OpenSSL's own first read and costs no system call.
#pragma once

#include <sys/socket.h>

#include <cerrno>
#include <cstdint>
#include <utility>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/socket_base.hpp>
#include <boost/system/error_code.hpp>

namespace benchgate::router::tls {

inline constexpr uint8_t kHandshakeRecordType = 22;

// Waits until `socket` has a byte to read and calls done(ec, tls) without consuming it: `tls`
// false when that byte cannot open a TLS connection. `ec` is the wait's error (the socket was
// closed meanwhile); a peer that closed first gives tls = true, so that the handshake reports
// it as it always did. `done` must keep the socket's owner alive.
template <typename Socket, typename Handler>
void async_peek_first_byte(Socket& socket, Handler done) {
  socket.async_wait(boost::asio::socket_base::wait_read,
                    [&socket, done = std::move(done)](const boost::system::error_code& ec) mutable {
                      if (ec) return done(ec, true);
                      uint8_t first = 0;
                      const ssize_t got =
                          ::recv(socket.native_handle(), &first, 1, MSG_PEEK | MSG_DONTWAIT);
                      if (got == 1) return done(ec, first == kHandshakeRecordType);
                      if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
                        return async_peek_first_byte(socket, std::move(done));
                      }
                      done(ec, true);
                    });
}

}  // namespace benchgate::router::tls
