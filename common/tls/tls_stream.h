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
// Beast's WebSocket teardown for it (below). Every operation is an OpenSSL call (a read,
// several: below), retried after the socket becomes ready in the direction OpenSSL asked for
// (SSL_ERROR_WANT_READ or _WRITE); an operation that completes at once still completes through
// the executor, never inside the call that started it. Two things make many small messages
// cheap: a read decrypts every record OpenSSL holds into the caller's buffer (one read of the
// socket brings many with read-ahead on), and an asynchronous write gathers small buffers into
// one record of up to 16 KiB (detail::WriteCall; async_write_all over a whole sequence,
// one record per OpenSSL call), where a record per buffer cost a send system call and a TCP
// segment each. Once the socket is closed no OpenSSL call touches its
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
#include <optional>
#include <span>
#include <type_traits>
#include <utility>

#include <boost/asio/buffer.hpp>
#include <boost/asio/compose.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/stream_base.hpp>
#include <boost/beast/core/buffers_suffix.hpp>
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
// (EAGAIN, or fewer bytes than asked: TCP hands over all it has), whether it found the queue
// empty (EAGAIN: OpenSSL holds no whole record then, at most the start of one, since it reads
// the socket only for a record it does not have whole), and expect_first_byte()'s check of the
// first byte read. `ended`: read_records met the end of the stream (the peer's close_notify or
// an alert) or an error after the bytes it returned, and the next read reports it; `error`:
// that error's OpenSSL code (ERR_peek_error; 0 for an end without one), kept for that read.
struct ReadWatch {
  enum class FirstByte : uint8_t { kOff, kArmed, kMatched, kOther } first = FirstByte::kOff;
  uint8_t expected = 0;
  bool drained = false;
  bool starved = false;
  bool ended = false;
  uint32_t error = 0;
};
long watch_reads(BIO* bio, int oper, const char* data, size_t len, int argi, long argl, int ret,
                 size_t* processed);
// The outcome of an OpenSSL call on `ssl` that returned `result` <= 0.
Step failed_call(SSL* ssl, int result, boost::system::error_code& ec);

// The most plaintext one TLS record carries (RFC 8446 section 5.1, and TLS 1.2's).
inline constexpr size_t kRecordPlaintext = 16384;
// The plaintext one record of `ssl` carries: kRecordPlaintext, or less where the peer asked
// for a smaller maximum fragment length (RFC 6066 section 4).
size_t record_plaintext(SSL* ssl);
// The thread's buffer for small buffers gathered into one record.
std::span<unsigned char, kRecordPlaintext> gather_buffer();
// A block for a gathered write that must wait for the socket (the thread's pool,
// common/util/size_class_pool.h), and its release.
void* keep_gathered(const void* data, size_t size);
void release_gathered(void* block);

// SSL_read_ex into `data`, then again while OpenSSL holds bytes it has read from the socket and
// `data` has room, so that every record one read of the socket brought is decrypted in one
// call (with read-ahead a socket read brings many). A later call that fails ends the loop
// without an error: what it read is returned. When that failure was not a want-read or
// want-write (the peer's close_notify, an alert, a bad record) `watch.ended` is set: OpenSSL
// then holds nothing more, yet the next read must run to report it. OpenSSL answers every call
// after an error with a reason of its own (a truncated stream), so the error's code is kept in
// `watch.error` and the next read fails with it, as a read that met the error first would.
int read_records(SSL* ssl, void* data, size_t size, size_t& bytes, ReadWatch& watch);

// What one SSL_write_ex of a write of `buffers` sends: the first non-empty buffer as it is, or,
// when that is shorter than a record and another non-empty buffer follows, as much of the
// sequence as one record carries, copied into the thread's gather buffer: one record and one
// send of the socket for a frame header and its payload, or for a batch of small messages,
// instead of one of each per buffer. A gathered write that must wait for the socket (keep(),
// before waiting) moves its bytes into a block of its own, since the thread's buffer serves
// other connections meanwhile and OpenSSL may not have encrypted them yet (a TLS 1.3 key
// update it had to send first); a retry passes the same bytes again, as OpenSSL requires. With
// partial writes on, one call writes at most one record of this write (after what an earlier
// call left pending, if anything), so a gathered write that returns has written all of its
// bytes or none. `gather` false: the first non-empty buffer only.
class WriteCall {
 public:
  template <typename ConstBuffers>
  WriteCall(SSL* ssl, const ConstBuffers& buffers, bool gather = true) {
    auto it = boost::asio::buffer_sequence_begin(buffers);
    const auto end = boost::asio::buffer_sequence_end(buffers);
    while (it != end && boost::asio::const_buffer(*it).size() == 0) ++it;
    if (it == end) return;
    const boost::asio::const_buffer first(*it);
    data_ = first.data();
    size_ = first.size();
    if (!gather || size_ >= kRecordPlaintext) return;
    const size_t record = record_plaintext(ssl);
    if (size_ >= record) return;
    ++it;
    while (it != end && boost::asio::const_buffer(*it).size() == 0) ++it;
    if (it == end) return;
    const std::span<unsigned char, kRecordPlaintext> into = gather_buffer();
    size_ = boost::asio::buffer_copy(boost::asio::buffer(into.data(), record), buffers);
    data_ = into.data();
    gathered_ = true;
  }
  WriteCall(WriteCall&& other) noexcept
      : data_(other.data_),
        size_(other.size_),
        kept_(std::exchange(other.kept_, nullptr)),
        gathered_(other.gathered_) {}
  WriteCall& operator=(WriteCall&&) = delete;
  ~WriteCall() {
    if (kept_ != nullptr) release_gathered(kept_);
  }

  int operator()(SSL* ssl, size_t& bytes) const {
    return size_ == 0 ? 1 : SSL_write_ex(ssl, data_, size_, &bytes);
  }
  // Before the operation waits for the socket.
  void keep() {
    if (!gathered_ || kept_ != nullptr) return;
    kept_ = keep_gathered(data_, size_);
    data_ = kept_;
  }

 private:
  const void* data_ = nullptr;
  size_t size_ = 0;
  void* kept_ = nullptr;
  bool gathered_ = false;
};

// async_write_some's call: the WriteCall is made when the operation first runs, not when it is
// created (an operation started later, with a deferred completion token, must not send what
// the thread's gather buffer held when it was created).
template <typename ConstBuffers>
class LazyWriteCall {
 public:
  explicit LazyWriteCall(const ConstBuffers& buffers) : buffers_(buffers) {}
  int operator()(SSL* ssl, size_t& bytes) {
    if (!call_) call_.emplace(ssl, buffers_);
    return (*call_)(ssl, bytes);
  }
  void keep() {
    if (call_) call_->keep();
  }
  // The call is done: what keep() kept goes back to the pool now, not once the handler has
  // run (it may start the next write, which keeps its own).
  void done() { call_.reset(); }

 private:
  ConstBuffers buffers_;
  std::optional<WriteCall> call_;
};
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

  // Whether a read returns something (bytes, the end of the stream, an error) without the
  // socket becoming readable: bytes decrypted and not yet read, or received and not yet
  // decrypted, unless all it holds is the start of a record and its last read of the socket
  // found nothing more (the rest of that record will make the socket readable; a wait that
  // did not wait would spin until it came); or an end a read met after its bytes
  // (ReadWatch::ended).
  bool has_buffered_input() const {
    return reads_.ended || SSL_pending(ssl_) > 0 || (SSL_has_pending(ssl_) == 1 && !reads_.starved);
  }

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

  // Reads into the first non-empty buffer of `buffers` every record OpenSSL holds, as far as
  // it has room (detail::read_records); handler(error_code, size_t).
  template <typename MutableBuffers, typename Handler>
  auto async_read_some(const MutableBuffers& buffers, Handler&& handler) {
    const boost::asio::mutable_buffer into = first_buffer<boost::asio::mutable_buffer>(buffers);
    return start<true>(
        [into, watch = &reads_](SSL* ssl, size_t& bytes) {
          return detail::read_records(ssl, into.data(), into.size(), bytes, *watch);
        },
        std::forward<Handler>(handler));
  }

  // Writes (part of) `buffers`: the first non-empty buffer, or small buffers gathered into one
  // record (detail::WriteCall); handler(error_code, size_t).
  template <typename ConstBuffers, typename Handler>
  auto async_write_some(const ConstBuffers& buffers, Handler&& handler) {
    return start<true>(detail::LazyWriteCall<ConstBuffers>(buffers),
                       std::forward<Handler>(handler));
  }

  // Writes all of `buffers` (valid until the handler runs), a record per OpenSSL call, small
  // buffers gathered from anywhere in the sequence (asio::async_write hands async_write_some
  // at most 16 buffers at a time: 8 frames of a header and a payload); handler(error_code,
  // size_t).
  template <typename ConstBuffers, typename Handler>
  auto async_write_all(const ConstBuffers& buffers, Handler&& handler) {
    return boost::asio::async_compose<Handler, void(error_code, size_t)>(
        WriteAll<ConstBuffers>{*this, boost::beast::buffers_suffix<ConstBuffers>(buffers),
                               boost::asio::buffer_size(buffers)},
        handler, socket_);
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
  // written (as async_write's next write_some does). It gathers nothing: OpenSSL requires the
  // next write to pass at least the bytes of the record left pending, and a gathered record
  // could hold more than asio::async_write's 16 buffers do.
  template <typename ConstBuffers>
  size_t write_some(const ConstBuffers& buffers, error_code& ec) {
    const detail::WriteCall call(ssl_, buffers, /*gather=*/false);
    size_t bytes = 0;
    const Step step = attempt(call, bytes, ec);
    if (step != Step::kDone) ec = boost::asio::error::would_block;
    return bytes;
  }

  // Reads what OpenSSL holds or the non-blocking socket has (detail::read_records), never
  // waiting: would_block when neither has anything.
  template <typename MutableBuffers>
  size_t read_some(const MutableBuffers& buffers, error_code& ec) {
    const boost::asio::mutable_buffer into = first_buffer<boost::asio::mutable_buffer>(buffers);
    size_t bytes = 0;
    const Step step = attempt(
        [&](SSL* ssl, size_t& n) {
          return detail::read_records(ssl, into.data(), into.size(), n, reads_);
        },
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

  // Waits, without a re-arm, for the socket's next edge in the direction OpenSSL asked for
  // (`step`: kWantRead or kWantWrite); the operation `self` runs again then.
  template <typename Self>
  void wait_for(Step step, Self&& self) {
    ::benchgate::net::async_wait_edge(*reactor_, socket_.lowest_layer(),
                                      step == Step::kWantRead ? ::benchgate::net::Readiness::kRead
                                                              : ::benchgate::net::Readiness::kWrite,
                                      std::forward<Self>(self));
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
        // Closed or cancelled while waiting: what the call kept goes back before the handler
        // runs, as when it is done.
        if constexpr (requires { call.done(); }) call.done();
        result = wait_ec;
        return finish(self);
      }
      const Step step = stream.attempt(call, bytes, result);
      if (step != Step::kDone) {
        if constexpr (requires { call.keep(); }) call.keep();
        state = State::kWaiting;
        stream.wait_for(step, std::move(self));
        return;
      }
      if constexpr (requires { call.done(); }) call.done();
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

  // async_write_all's operation: one WriteCall after another, each kept across its waits.
  template <typename ConstBuffers>
  struct WriteAll {
    TlsStream& stream;
    boost::beast::buffers_suffix<ConstBuffers> rest;
    size_t left = 0;
    std::optional<detail::WriteCall> call{};
    size_t written = 0;
    error_code result{};
    enum class State { kStarting, kWaiting, kPosted } state = State::kStarting;

    template <typename Self>
    void operator()(Self& self, error_code wait_ec = {}) {
      if (state == State::kPosted) return self.complete(result, written);
      if (wait_ec) {
        // The kept call goes back before the handler runs (LazyWriteCall::done).
        call.reset();
        return self.complete(wait_ec, written);
      }
      while (left > 0) {
        if (!call) call.emplace(stream.ssl_, rest);
        size_t bytes = 0;
        const Step step = stream.attempt(*call, bytes, result);
        if (step != Step::kDone) {
          call->keep();
          state = State::kWaiting;
          stream.wait_for(step, std::move(self));
          return;
        }
        call.reset();
        if (result) break;
        rest.consume(bytes);
        written += bytes;
        left -= bytes;
      }
      if (state == State::kStarting) {
        // Done at once: complete through the executor, as an asynchronous operation must.
        state = State::kPosted;
        boost::asio::post(std::move(self));
        return;
      }
      self.complete(result, written);
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
