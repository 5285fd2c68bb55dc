// TLS on a connection's own socket: OpenSSL reads and writes the socket's descriptor itself
// (SSL_set_fd), as nginx does, instead of Boost.Asio's ssl::stream, which puts a BIO pair and
// two copy buffers between OpenSSL and the socket. Per connection that saves about 68 KB
// (the two 17 KB vectors Asio zero-fills and the BIO pair's two 17 KB buffers) and two
// copies of every byte; docs/PERFORMANCE.md ("TLS in counts") has what it changed.
//
// TlsStream<tcp::socket> owns its socket: every TLS connection of the router
// (router/net/stream.h). TlsStream<tcp::socket&> works on a socket its owner keeps across
// reconnects: the worker's HTTP/1.1 and HTTP/2 load connections (worker/http). It offers the
// part of ssl::stream's interface those use (asynchronous handshake, reads, writes and
// shutdown; non-blocking read_some and write_some; native_handle(); next_layer()), and
// Beast's WebSocket teardown for it (below). Every operation is one OpenSSL call, retried
// after the socket becomes ready in the direction OpenSSL asked for (SSL_ERROR_WANT_READ or
// _WRITE); an operation that completes at once still completes through the executor, never
// inside the call that started it. Once the socket is closed no OpenSSL call touches its
// descriptor again (the number may already belong to a newer connection): operations end with
// bad_descriptor.
//
// Errors are those ssl::stream gives, so callers classify them alike
// (router/tls/handshake_outcome.cc): the peer's close_notify is eof, an end of stream
// without one is ssl::error::stream_truncated, an OpenSSL error is its packed error code in
// the ssl category, a socket error its errno.
#pragma once

#include <openssl/bio.h>
#include <openssl/ssl.h>

#include <cstddef>
#include <cstdint>
#include <new>
#include <type_traits>
#include <utility>

#include <boost/asio/buffer.hpp>
#include <boost/asio/compose.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/stream_base.hpp>
#include <boost/beast/core/role.hpp>
#include <boost/system/error_code.hpp>

#include "common/net/asio_access.h"
#include "common/net/edge_wait.h"

namespace benchgate::tls {

// What every TlsStream shares (tls_stream.cc).
namespace detail {
enum class Step { kDone, kWantRead, kWantWrite };
// Empties the thread's OpenSSL error queue and errno before an OpenSSL call.
void prepare_call();
// What the stream's BIO callback (BIO_set_callback_ex, argument: the stream's ReadWatch) sees
// of OpenSSL's reads of the socket: whether the last one left the socket's receive queue empty
// (EAGAIN, or fewer bytes than asked: TCP hands over all it has), and expect_first_byte()'s
// check of the first byte read.
struct ReadWatch {
  enum class FirstByte : uint8_t { kOff, kArmed, kMatched, kOther } first = FirstByte::kOff;
  uint8_t expected = 0;
  bool drained = false;
};
long watch_reads(BIO* bio, int oper, const char* data, size_t len, int argi, long argl, int ret,
                 size_t* processed);
// The outcome of an OpenSSL call on `ssl` that returned `result` <= 0.
Step failed_call(SSL* ssl, int result, boost::system::error_code& ec);
}  // namespace detail

template <typename NextLayer>
class TlsStream {
 public:
  using next_layer_type = std::remove_reference_t<NextLayer>;
  using lowest_layer_type = next_layer_type::lowest_layer_type;
  using executor_type = next_layer_type::executor_type;
  using error_code = boost::system::error_code;

  // On a connected socket (taken, or referred to); the OpenSSL session comes from `context`.
  // Throws std::bad_alloc when OpenSSL cannot make one.
  TlsStream(NextLayer&& socket, boost::asio::ssl::context& context)
      : socket_(std::forward<NextLayer>(socket)),
        reactor_(&::benchgate::net::asio_access::reactor(socket_)),
        ssl_(SSL_new(context.native_handle())) {
    if (ssl_ == nullptr) throw std::bad_alloc();
    // A write that needs the socket twice goes on from where the first call left it.
    SSL_set_mode(ssl_, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    // One read takes what the socket has, several records at once, instead of each record's
    // header and body apart (two reads a record): what it holds beyond the record being
    // decrypted is has_buffered_input().
    SSL_set_read_ahead(ssl_, 1);
    if (SSL_set_fd(ssl_, socket_.native_handle()) != 1) {
      SSL_free(ssl_);
      throw std::bad_alloc();
    }
    watch_reads();
  }
  TlsStream(TlsStream&& other) noexcept
      : socket_(std::forward<NextLayer>(other.socket_)),
        reactor_(other.reactor_),
        ssl_(std::exchange(other.ssl_, nullptr)),
        reads_(other.reads_) {
    if (ssl_ != nullptr) watch_reads();
  }
  TlsStream& operator=(TlsStream&&) = delete;
  TlsStream(const TlsStream&) = delete;
  TlsStream& operator=(const TlsStream&) = delete;
  ~TlsStream() {
    if (ssl_ != nullptr) SSL_free(ssl_);
  }

  executor_type get_executor() { return socket_.get_executor(); }
  next_layer_type& next_layer() { return socket_; }
  lowest_layer_type& lowest_layer() { return socket_.lowest_layer(); }
  SSL* native_handle() { return ssl_; }

  // Bytes OpenSSL holds that a read returns without the socket becoming readable.
  bool has_buffered_input() const { return SSL_pending(ssl_) > 0 || SSL_has_pending(ssl_) == 1; }

  // Before a server-side handshake: the first byte the peer sends must be `byte` (22, the
  // content type of a handshake record, for a TLS client). OpenSSL decides nothing before it
  // holds a whole 5-byte record header, so a peer that sent fewer bytes of something else and
  // waits for an answer (a cleartext RawSocket hello is 4 bytes) would sit until the caller's
  // deadline; with this check the read that brings another first byte fails, the handshake
  // ends at once with an error and opened_with_other_byte() is true. The check looks at the
  // bytes OpenSSL reads anyway: no system call of its own.
  void expect_first_byte(uint8_t byte) {
    reads_.first = detail::ReadWatch::FirstByte::kArmed;
    reads_.expected = byte;
  }
  bool opened_with_other_byte() const {
    return reads_.first == detail::ReadWatch::FirstByte::kOther;
  }

  // Waits until the socket is readable; handler(error_code). When OpenSSL's last read of the
  // socket emptied its receive queue, through the reactor registration without a re-arm
  // (net::EdgeWait, common/net/edge_wait.h: no system call); otherwise through the socket's
  // async_wait (one epoll_ctl), since bytes may wait there that made their edge already.
  template <typename Handler>
  void async_wait_readable(Handler&& handler) {
    if (!reads_.drained) {
      socket_.async_wait(boost::asio::socket_base::wait_read, std::forward<Handler>(handler));
      return;
    }
    ::benchgate::net::async_wait_edge(*reactor_, socket_, ::benchgate::net::Readiness::kRead,
                                      std::forward<Handler>(handler));
  }

  // The TLS handshake in `type`'s role; handler(error_code).
  template <typename Handler>
  auto async_handshake(boost::asio::ssl::stream_base::handshake_type type, Handler&& handler) {
    if (type == boost::asio::ssl::stream_base::server) {
      SSL_set_accept_state(ssl_);
    } else {
      SSL_set_connect_state(ssl_);
    }
    return start<false>([](SSL* ssl, size_t&) { return SSL_do_handshake(ssl); },
                        std::forward<Handler>(handler));
  }

  // Reads into the first non-empty buffer of `buffers`; handler(error_code, size_t).
  template <typename MutableBuffers, typename Handler>
  auto async_read_some(const MutableBuffers& buffers, Handler&& handler) {
    const boost::asio::mutable_buffer into = first_buffer<boost::asio::mutable_buffer>(buffers);
    return start<true>(
        [into](SSL* ssl, size_t& bytes) {
          return into.size() == 0 ? 1 : SSL_read_ex(ssl, into.data(), into.size(), &bytes);
        },
        std::forward<Handler>(handler));
  }

  // Writes (part of) the first non-empty buffer of `buffers`; handler(error_code, size_t).
  template <typename ConstBuffers, typename Handler>
  auto async_write_some(const ConstBuffers& buffers, Handler&& handler) {
    const boost::asio::const_buffer from = first_buffer<boost::asio::const_buffer>(buffers);
    return start<true>(
        [from](SSL* ssl, size_t& bytes) {
          return from.size() == 0 ? 1 : SSL_write_ex(ssl, from.data(), from.size(), &bytes);
        },
        std::forward<Handler>(handler));
  }

  // Sends close_notify and waits for the peer's (OpenSSL discards what the peer sends
  // meanwhile); handler(error_code).
  template <typename Handler>
  auto async_shutdown(Handler&& handler) {
    return start<false>(
        [](SSL* ssl, size_t&) {
          const int sent = SSL_shutdown(ssl);
          if (sent != 0) return sent;
          const int second = SSL_shutdown(ssl);  // ours is out: now wait for the peer's
          return second == 0 ? 1 : second;
        },
        std::forward<Handler>(handler));
  }

  // Writes (part of) the first non-empty buffer now, never waiting: would_block when the
  // socket takes nothing. What the socket did not take of a record stays with OpenSSL and
  // goes out first on the next write, which must start at the first byte not reported
  // written (as async_write's next write_some does).
  template <typename ConstBuffers>
  size_t write_some(const ConstBuffers& buffers, error_code& ec) {
    const boost::asio::const_buffer from = first_buffer<boost::asio::const_buffer>(buffers);
    if (from.size() == 0) {
      ec = {};
      return 0;
    }
    size_t bytes = 0;
    const Step step = attempt(
        [&](SSL* ssl, size_t& n) { return SSL_write_ex(ssl, from.data(), from.size(), &n); }, bytes,
        ec);
    if (step != Step::kDone) ec = boost::asio::error::would_block;
    return bytes;
  }

  // Reads what OpenSSL holds or the non-blocking socket has, never waiting: would_block
  // when neither has anything.
  template <typename MutableBuffers>
  size_t read_some(const MutableBuffers& buffers, error_code& ec) {
    const boost::asio::mutable_buffer into = first_buffer<boost::asio::mutable_buffer>(buffers);
    if (into.size() == 0) {
      ec = {};
      return 0;
    }
    size_t bytes = 0;
    const Step step =
        attempt([&](SSL* ssl, size_t& n) { return SSL_read_ex(ssl, into.data(), into.size(), &n); },
                bytes, ec);
    if (step != Step::kDone) ec = boost::asio::error::would_block;
    return bytes;
  }

 private:
  using Step = detail::Step;

  template <typename Buffer, typename Buffers>
  static Buffer first_buffer(const Buffers& buffers) {
    for (auto it = boost::asio::buffer_sequence_begin(buffers);
         it != boost::asio::buffer_sequence_end(buffers); ++it) {
      Buffer buffer(*it);
      if (buffer.size() != 0) return buffer;
    }
    return Buffer();
  }

  // One OpenSSL call: its outcome, with `ec` set when it is done and failed.
  template <typename Call>
  Step attempt(Call&& call, size_t& bytes, error_code& ec) {
    if (!socket_.is_open()) {
      ec = boost::asio::error::bad_descriptor;
      return Step::kDone;
    }
    detail::prepare_call();
    const int result = call(ssl_, bytes);
    if (result > 0) {
      ec = {};
      return Step::kDone;
    }
    return detail::failed_call(ssl_, result, ec);
  }

  // The composed operation: attempt, wait for what OpenSSL wants, attempt again.
  template <typename Call, bool kWithBytes>
  struct Operation {
    TlsStream& stream;
    Call call;
    enum class State { kStarting, kWaiting, kPosted } state = State::kStarting;
    error_code result{};
    size_t bytes = 0;

    template <typename Self>
    void operator()(Self& self, error_code wait_ec = {}) {
      if (state == State::kPosted) return finish(self);
      if (wait_ec) {
        result = wait_ec;
        return finish(self);
      }
      const Step step = stream.attempt(call, bytes, result);
      if (step != Step::kDone) {
        state = State::kWaiting;
        ::benchgate::net::EdgeWait<Self>::start(*stream.reactor_, stream.socket_.lowest_layer(),
                                                step == Step::kWantRead
                                                    ? ::benchgate::net::Readiness::kRead
                                                    : ::benchgate::net::Readiness::kWrite,
                                                std::move(self));
        return;
      }
      if (state == State::kStarting) {
        // Done at once: complete through the executor, as an asynchronous operation must.
        state = State::kPosted;
        boost::asio::post(std::move(self));
        return;
      }
      finish(self);
    }

    template <typename Self>
    void finish(Self& self) {
      if constexpr (kWithBytes) {
        self.complete(result, bytes);
      } else {
        self.complete(result);
      }
    }
  };

  template <bool kWithBytes, typename Call, typename Handler>
  auto start(Call call, Handler&& handler) {
    using Signature = std::conditional_t<kWithBytes, void(error_code, size_t), void(error_code)>;
    return boost::asio::async_compose<Handler, Signature>(
        Operation<Call, kWithBytes>{*this, std::move(call)}, handler, socket_);
  }

  NextLayer socket_;
  // The socket's io_context's reactor, looked up once (a service look-up takes a lock) for the
  // edge waits.
  boost::asio::detail::reactor* reactor_;
  SSL* ssl_;
  void watch_reads() {
    BIO* bio = SSL_get_rbio(ssl_);
    BIO_set_callback_arg(bio, reinterpret_cast<char*>(&reads_));
    BIO_set_callback_ex(bio, &detail::watch_reads);
  }

  detail::ReadWatch reads_;
};

// What the router's connections ask of every stream (router/net/stream.h).
template <typename NextLayer>
bool has_buffered_input(TlsStream<NextLayer>& stream) {
  return stream.has_buffered_input();
}

// Beast's WebSocket stream over a TlsStream closes it as over ssl::stream
// (boost/beast/websocket/ssl.hpp): close_notify, then the TCP close is the caller's.
template <typename NextLayer>
void teardown(boost::beast::role_type, TlsStream<NextLayer>& stream,
              boost::system::error_code& ec) {
  ec = {};
  if (!stream.next_layer().is_open()) return;
  detail::prepare_call();
  SSL_shutdown(stream.native_handle());  // close_notify, best effort: the socket closes next
  detail::prepare_call();
}

template <typename NextLayer, typename Handler>
void async_teardown(boost::beast::role_type, TlsStream<NextLayer>& stream, Handler&& handler) {
  stream.async_shutdown(std::forward<Handler>(handler));
}

}  // namespace benchgate::tls
