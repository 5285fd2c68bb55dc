// TLS on the connection's own socket (see tls_stream.h).
#include "common/tls/tls_stream.h"

#include <openssl/err.h>

#include <cerrno>

#include <boost/asio/error.hpp>
#include <boost/asio/ssl/error.hpp>

namespace benchgate::tls::detail {

void prepare_call() {
  // SSL_get_error() reads the thread's error queue: it must hold only this call's errors.
  ERR_clear_error();
  errno = 0;
}

long watch_reads(BIO* bio, int oper, const char* data, size_t len, int, long, int ret,
                 size_t* processed) {
  if (oper != (BIO_CB_READ | BIO_CB_RETURN)) return ret;
  auto* watch = reinterpret_cast<ReadWatch*>(BIO_get_callback_arg(bio));
  const size_t got = ret > 0 && processed != nullptr ? *processed : 0;
  // EAGAIN, or a short read: what arrives next makes a new edge. An end of stream or an error
  // is not "drained" (no edge follows it); nothing waits after those anyway.
  watch->drained = got > 0 ? got < len : BIO_should_retry(bio) != 0;
  if (watch->first != ReadWatch::FirstByte::kArmed || got == 0) return ret;
  if (static_cast<uint8_t>(data[0]) == watch->expected) {
    watch->first = ReadWatch::FirstByte::kMatched;
    return ret;
  }
  // OpenSSL sees a failed read (no retry): the handshake fails before it parses anything, so
  // it answers nothing.
  watch->first = ReadWatch::FirstByte::kOther;
  watch->drained = false;
  errno = 0;
  return -1;
}

Step failed_call(SSL* ssl, int result, boost::system::error_code& ec) {
  const int system_error = errno;
  switch (SSL_get_error(ssl, result)) {
    case SSL_ERROR_WANT_READ:
      return Step::kWantRead;
    case SSL_ERROR_WANT_WRITE:
      return Step::kWantWrite;
    case SSL_ERROR_ZERO_RETURN:
      ec = boost::asio::error::eof;  // the peer's close_notify
      return Step::kDone;
    case SSL_ERROR_SYSCALL:
      if (const unsigned long error = ERR_get_error(); error != 0) {
        ec = boost::system::error_code(static_cast<int>(error),
                                       boost::asio::error::get_ssl_category());
      } else if (system_error != 0) {
        ec = boost::system::error_code(system_error, boost::system::system_category());
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
        ec = boost::system::error_code(static_cast<int>(error),
                                       boost::asio::error::get_ssl_category());
      } else {
        ec = boost::asio::error::fault;
      }
      ERR_clear_error();
      return Step::kDone;
    }
  }
}

}  // namespace benchgate::tls::detail
