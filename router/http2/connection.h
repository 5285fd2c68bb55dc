// One HTTP/2 connection on the router's HTTP port: the socket side of a ServerSession. Reads
// what the client sends, feeds it to the session, writes what the session queues (in batches
// of up to kFlushBytes, synchronously when the socket takes it all), answers /bench/delay on
// time and closes an idle connection. A client that ends its side of the connection with
// answers owed still gets them: the connection closes once nothing more can be written.
//
// A template over the byte stream (router/net/stream.h), as the WAMP transports are: a plain
// TCP socket (h2c with prior knowledge, handed over by the HTTP/1.1 session that saw the
// preface), or a TLS stream whose ALPN chose "h2" (handed over by the TLS session right after
// the handshake). What TLS adds: wait_readable() asks net::has_buffered_input before waiting
// on the socket, and flush() writes through TLS asynchronously only.
//
// The read buffer is the serving thread's spare (common/util/thread_spare.h), taken for one
// read and given back at once, since the session consumes everything it is given: an idle
// HTTP/2 connection holds no read buffer. A cleartext connection reads until the socket's
// queue is empty and then waits for its next edge in Asio's own registration
// (common/net/edge_wait.h), which costs no system call; a TLS connection waits through
// TlsStream::async_wait_readable (the same, once OpenSSL's own read emptied the socket). A read and
// a write may be pending at once (HTTP/2 is full duplex); the timer is the one deadline: the
// earliest delayed answer, or the idle timeout, checked lazily. The operations a connection
// starts per request (a posted read or write turn, an asynchronous write) take their memory
// from the thread's size-class pool (common/util/pooled_handler.h): Asio's own cache keeps
// two, fewer than several busy connections of a thread have pending at once.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include <openssl/ssl.h>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/stream_traits.hpp>

#include "common/net/asio_access.h"
#include "common/net/edge_wait.h"
#include "common/time/clock.h"
#include "common/util/pooled_handler.h"
#include "common/util/thread_spare.h"
#include "router/http/deadline_wheel.h"
#include "router/http/server_options.h"
#include "router/http2/server_session.h"
#include "router/metrics/thread_stats.h"
#include "router/net/stream.h"

namespace benchgate::router::http2 {

struct ReadTag {};
using SpareRead = ThreadSpare<ReadTag, ByteBlock>;

// What the serving thread keeps of a connection an HTTP/1.1 session handed over, whatever its
// stream: its place in the thread's list of them (http::SessionContext::handed_over, through
// the hook of http::DeadlineEntry, which it leaves when destroyed) and a way to close it when
// the server stops.
class ConnectionBase : public http::DeadlineEntry {
 public:
  virtual ~ConnectionBase() = default;
  virtual void close() = 0;
};

template <typename Stream>
class Connection final : public ConnectionBase,
                         public std::enable_shared_from_this<Connection<Stream>> {
 public:
  static constexpr size_t kReadBytes = 64 * 1024;
  static constexpr size_t kFlushBytes = 64 * 1024;
  static constexpr int kReadsPerWakeup = 4;

  // `owner` is kept alive as long as the connection (the HTTP/1.1 session that handed it over
  // stays in its thread's list, so that stopping the server reaches this connection).
  Connection(Stream stream, const http::ServerOptions& options, metrics::ThreadStats& stats,
             std::shared_ptr<void> owner)
      : stream_(std::move(stream)),
        options_(options),
        stats_(stats),
        session_(options, stats),
        timer_(stream_.get_executor()),
        reactor_(::benchgate::net::asio_access::reactor(boost::beast::get_lowest_layer(stream_))),
        owner_(std::move(owner)) {}

  // `already_read`: bytes taken off the stream before the hand-over (the preface, maybe more).
  void start(std::string_view already_read) {
    const int64_t now = steady_now_ns();
    last_activity_ns_ = now;
    if (!session_.receive(reinterpret_cast<const uint8_t*>(already_read.data()),
                          already_read.size(), now)) {
      return close();
    }
    arm_timer(now + options_.idle_timeout_ns);
    // The first bytes may hold a /bench/delay request: its answer may be due before the idle
    // timeout.
    after_input();
  }

  void close() override {
    if (closed_) return;
    closed_ = true;
    net::close_stream(stream_);
    timer_.cancel();
  }

 private:
  using error_code = boost::system::error_code;
  // A TLS stream (common/tls/tls_stream.h): its native handle is the SSL object.
  static constexpr bool kTls =
      std::is_same_v<decltype(std::declval<Stream&>().native_handle()), SSL*>;

  void wait_readable() {
    if (closed_ || reading_) return;
    reading_ = true;
    auto readable = [self = this->shared_from_this()](const error_code& ec) {
      self->on_readable(ec);
    };
    if constexpr (kTls) {
      // What the TLS layer already holds (TlsStream::has_buffered_input) makes the socket
      // readable no more.
      if (net::has_buffered_input(stream_)) {
        post_keeping_allocator(stream_.get_executor(),
                               pooled([readable] { readable(error_code{}); }));
        return;
      }
      stream_.async_wait_readable(std::move(readable));
    } else {
      if (!drained_) {
        // The last wake-up stopped at its round limit with bytes maybe left in the socket: no
        // new edge would come for them. Read on at the thread's next turn.
        post_keeping_allocator(stream_.get_executor(),
                               pooled([readable] { readable(error_code{}); }));
        return;
      }
      ::benchgate::net::async_wait_edge(reactor_, stream_, ::benchgate::net::Readiness::kRead,
                                        std::move(readable));
    }
  }

  void on_readable(const error_code& ec) {
    reading_ = false;
    if (closed_) return;
    if (ec) return close();
    ByteBlock block;
    SpareRead::lend(block);
    block.reserve_discarding(kReadBytes);
    // What the socket holds, a buffer at a time (a few at most, so that one busy connection
    // does not hold the thread): everything read is handed to the session at once. Drained:
    // a read would block, or returned less than the buffer (the socket's queue was empty).
    drained_ = false;
    for (int round = 0; round < kReadsPerWakeup; ++round) {
      error_code read_ec;
      const size_t bytes =
          stream_.read_some(boost::asio::buffer(block.data(), block.capacity()), read_ec);
      if (read_ec == boost::asio::error::would_block || read_ec == boost::asio::error::try_again) {
        drained_ = true;
        break;
      }
      if (read_ec) {
        // The client ended its side (TCP FIN, or TLS close_notify) with answers owed or still
        // being written (nghttp2 closes a stream once its last frame is queued): it may still
        // read them. Nothing more is read; the connection closes once nothing more can
        // be written (flush()). A reset or an error: the client is gone.
        if (read_ec == boost::asio::error::eof &&
            (session_.open_streams() > 0 || writing_ || !out_.empty())) {
          input_ended_ = true;
          break;
        }
        SpareRead::give_back(block);
        return close();
      }
      stats_.counters.bytes_received += bytes;
      last_activity_ns_ = steady_now_ns();
      if (!session_.receive(block.data(), bytes, last_activity_ns_)) {
        SpareRead::give_back(block);
        return close();
      }
      if (bytes < block.capacity()) {
        drained_ = true;
        break;
      }
    }
    SpareRead::give_back(block);
    after_input();
  }

  // New answers may be queued (and a delay may now come first): write, re-arm, read on.
  void after_input() {
    const int64_t due = session_.next_delay_ns();
    if (due != 0 && due < timer_at_ns_) arm_timer(due);
    flush();
    if (!closed_ && !input_ended_) wait_readable();
  }

  void flush() {
    if (closed_ || writing_) return;
    // Whatever the socket takes at once goes out synchronously; at most a few rounds, then the
    // rest is left to async_write.
    for (int round = 0; round < 4; ++round) {
      out_.clear();
      if (!session_.fill(out_, kFlushBytes)) return close();
      if (out_.empty()) {
        // After the client's end, only a delayed answer can still come: the window it would
        // need for the rest of an answer can no longer be granted.
        if (session_.done() || (input_ended_ && session_.next_delay_ns() == 0)) close();
        return;
      }
      error_code ec;
      const size_t written = stream_.write_some(boost::asio::buffer(out_), ec);
      if (ec && ec != boost::asio::error::would_block && ec != boost::asio::error::try_again) {
        return close();
      }
      stats_.counters.bytes_sent += written;
      last_activity_ns_ = steady_now_ns();
      if (written < out_.size()) {
        out_.erase(0, written);
        break;
      }
      out_.clear();
    }
    if (out_.empty()) {
      // Four full rounds: let other connections of the thread run, then go on.
      writing_ = true;
      post_keeping_allocator(stream_.get_executor(), pooled([self = this->shared_from_this()] {
                               self->writing_ = false;
                               self->flush();
                             }));
      return;
    }
    writing_ = true;
    boost::asio::async_write(
        stream_, boost::asio::buffer(out_),
        pooled([self = this->shared_from_this()](const error_code& ec, size_t bytes) {
          self->on_write(ec, bytes);
        }));
  }

  void on_write(const error_code& ec, size_t bytes) {
    writing_ = false;
    if (closed_) return;
    if (ec) return close();
    stats_.counters.bytes_sent += bytes;
    last_activity_ns_ = steady_now_ns();
    out_.clear();
    flush();
  }

  void arm_timer(int64_t at_ns) {
    timer_at_ns_ = at_ns;
    timer_.expires_at(steady_point(at_ns));
    timer_.async_wait(
        [self = this->shared_from_this()](const error_code& ec) { self->on_timer(ec); });
  }

  void on_timer(const error_code& ec) {
    if (closed_ || ec == boost::asio::error::operation_aborted) return;
    // A GOAWAY for idleness that could not be written within another idle period.
    if (idle_closed_) return close();
    const int64_t now = steady_now_ns();
    session_.answer_due_delays(now);
    const int64_t idle_at = last_activity_ns_ + options_.idle_timeout_ns;
    if (now >= idle_at && session_.next_delay_ns() == 0 && !idle_closed_) {
      // No traffic either way and no answer owed: GOAWAY, then close once it is written.
      idle_closed_ = true;
      ++stats_.counters.timed_out;
      session_.shut_down();
    }
    const int64_t due = session_.next_delay_ns();
    int64_t next = idle_closed_ ? now + options_.idle_timeout_ns
                                : std::max(last_activity_ns_ + options_.idle_timeout_ns, now + 1);
    if (due != 0) next = std::min(next, due);
    arm_timer(next);
    flush();
  }

  Stream stream_;
  const http::ServerOptions& options_;
  metrics::ThreadStats& stats_;
  ServerSession session_;
  std::string out_;
  boost::asio::steady_timer timer_;
  int64_t timer_at_ns_ = 0;
  int64_t last_activity_ns_ = 0;
  // The socket's io_context's reactor, for the edge waits.
  boost::asio::detail::reactor& reactor_;
  std::shared_ptr<void> owner_;
  // Cleartext: the last wake-up read the socket empty, so its next edge is worth waiting for.
  bool drained_ = true;
  bool reading_ = false;
  bool writing_ = false;
  bool closed_ = false;
  bool idle_closed_ = false;
  // The client ended its side with answers owed (on_readable): they are written, nothing read.
  bool input_ended_ = false;
};

}  // namespace benchgate::router::http2
