// TLS on the connection's own socket (see tls_stream.h).
#include "common/tls/tls_stream.h"

#include <openssl/err.h>

#include <cerrno>
#include <cstring>
#include <new>
#include <utility>

#include <boost/asio/error.hpp>
#include <boost/asio/ssl/error.hpp>

#include "common/util/size_class_pool.h"

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
  watch->starved = got == 0 && watch->drained;
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

size_t record_plaintext(SSL* ssl) {
  const SSL_SESSION* session = SSL_get_session(ssl);
  const uint8_t mode = session != nullptr ? SSL_SESSION_get_max_fragment_length(session)
                                          : TLSEXT_max_fragment_length_DISABLED;
  // Modes 1 to 4 are 2^9 to 2^12 bytes.
  if (mode >= TLSEXT_max_fragment_length_512 && mode <= TLSEXT_max_fragment_length_4096) {
    return size_t{512} << (mode - TLSEXT_max_fragment_length_512);
  }
  return kRecordPlaintext;
}

std::span<unsigned char, kRecordPlaintext> gather_buffer() {
  // Static storage of the thread, not the heap: a thread that never gathers touches none of it.
  thread_local unsigned char buffer[kRecordPlaintext];
  return std::span<unsigned char, kRecordPlaintext>(buffer);
}

void* keep_gathered(const void* data, size_t size) {
  void* block = size_class_pool::allocate(size, nullptr);
  if (block == nullptr) throw std::bad_alloc();
  std::memcpy(block, data, size);
  return block;
}

void release_gathered(void* block) { size_class_pool::release(block, nullptr); }

int read_records(SSL* ssl, void* data, size_t size, size_t& bytes, ReadWatch& watch) {
  bytes = 0;
  if (size == 0) return 1;
  if (const uint32_t error = std::exchange(watch.error, 0); error != 0) {
    // The error a call after the last bytes met: back on the thread's queue (emptied before
    // this call), where failed_call() reads it as it would have then.
    ERR_raise(ERR_GET_LIB(error), ERR_GET_REASON(error));
    return -1;
  }
  const int result = SSL_read_ex(ssl, data, size, &bytes);
  if (result <= 0) return result;
  while (bytes < size && SSL_has_pending(ssl) == 1) {
    size_t more = 0;
    prepare_call();
    const int next =
        SSL_read_ex(ssl, static_cast<unsigned char*>(data) + bytes, size - bytes, &more);
    if (next <= 0) {
      const int reason = SSL_get_error(ssl, next);
      if (reason != SSL_ERROR_WANT_READ && reason != SSL_ERROR_WANT_WRITE) {
        watch.ended = true;
        if (reason == SSL_ERROR_SSL) watch.error = static_cast<uint32_t>(ERR_peek_error());
      }
      prepare_call();
      break;
    }
    bytes += more;
  }
  return 1;
}

}  // namespace benchgate::tls::detail
