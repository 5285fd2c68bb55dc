// TLS on the connection's own socket (see tls_stream.h).
#include "router/net/tls_stream.h"

#include <openssl/err.h>

#include <cerrno>
#include <new>

#include <boost/asio/error.hpp>
#include <boost/asio/ssl/error.hpp>

namespace benchgate::router::net {

TlsStream::TlsStream(next_layer_type socket, boost::asio::ssl::context& context)
    : socket_(std::move(socket)), ssl_(SSL_new(context.native_handle())) {
  if (ssl_ == nullptr) throw std::bad_alloc();
  // A write that needs the socket twice goes on from where the first call left it.
  SSL_set_mode(ssl_, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  if (SSL_set_fd(ssl_, socket_.native_handle()) != 1) {
    SSL_free(ssl_);
    throw std::bad_alloc();
  }
}

TlsStream::TlsStream(TlsStream&& other) noexcept
    : socket_(std::move(other.socket_)), ssl_(std::exchange(other.ssl_, nullptr)) {}

TlsStream::~TlsStream() {
  if (ssl_ != nullptr) SSL_free(ssl_);
}

void TlsStream::prepare_call() {
  // SSL_get_error() reads the thread's error queue: it must hold only this call's errors.
  ERR_clear_error();
  errno = 0;
}

TlsStream::Step TlsStream::failed_call(int result, error_code& ec) {
  const int system_error = errno;
  switch (SSL_get_error(ssl_, result)) {
    case SSL_ERROR_WANT_READ:
      return Step::kWantRead;
    case SSL_ERROR_WANT_WRITE:
      return Step::kWantWrite;
    case SSL_ERROR_ZERO_RETURN:
      ec = boost::asio::error::eof;  // the peer's close_notify
      return Step::kDone;
    case SSL_ERROR_SYSCALL:
      if (const unsigned long error = ERR_get_error(); error != 0) {
        ec = error_code(static_cast<int>(error), boost::asio::error::get_ssl_category());
      } else if (system_error != 0) {
        ec = error_code(system_error, boost::system::system_category());
      } else {
        ec = boost::asio::ssl::error::stream_truncated;  // end of stream, no close_notify
      }
      ERR_clear_error();
      return Step::kDone;
    default: {
      const unsigned long error = ERR_get_error();
      if (ERR_GET_REASON(error) == SSL_R_UNEXPECTED_EOF_WHILE_READING) {
        ec = boost::asio::ssl::error::stream_truncated;
      } else if (error != 0) {
        ec = error_code(static_cast<int>(error), boost::asio::error::get_ssl_category());
      } else {
        ec = boost::asio::error::fault;
      }
      ERR_clear_error();
      return Step::kDone;
    }
  }
}

void teardown(boost::beast::role_type, TlsStream& stream, boost::system::error_code& ec) {
  ec = {};
  if (!stream.next_layer().is_open()) return;
  ERR_clear_error();
  SSL_shutdown(stream.native_handle());  // close_notify, best effort: the socket closes next
  ERR_clear_error();
}

}  // namespace benchgate::router::net
