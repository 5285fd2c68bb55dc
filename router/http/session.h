// One HTTP/1.1 connection: reads requests, answers them in order (pipelined requests found in
// one read are answered with one write), and enforces the size limits and timeouts.
//
// Hot path: the output buffer, the echo body and the list of pending timestamps belong to the
// connection and are reused; the read buffer is the serving thread's, lent to a connection
// while it has something to read (an idle connection holds none); the parser is rebuilt in
// place; fixed responses are copied from bytes serialised once. A cleartext connection that
// has just read keeps the buffer for --read-buffer-hold and reads ahead into it, which spares
// the epoll_ctl of a wait for readability per request (router/http/read_hold.h); then it
// gives the buffer back and waits for readability again. With --http-io epoll a cleartext
// connection instead waits in the serving thread's edge-triggered epoll set
// (common/net/readiness_poller.h), added once: told it is readable, it borrows the buffer,
// reads until a short read and gives the buffer back before it waits again, so a request
// costs its recv and its send and an idle connection still holds no buffer. Errors are
// error_codes, counted by kind. A session lives on exactly one serving thread and is only touched
// from it.
//
// The connection's state is one field (State): which operation is pending besides the
// deadline timer, and so which deadline applies. Every completion handler first checks that
// the session is still in the state that started it. HTTP/2 on the same port adds its own
// states (the preface, then frames) beside these, not flags inside them.
//
// The stream is a template parameter (router/net/stream.h): net::Stream for cleartext, or
// net::TlsStream on a listener with a certificate, where the session first runs the TLS
// handshake (kHandshaking, under --tls-handshake-timeout, counted in the thread's TLS
// counters by version and ALPN, or by failure reason) and lingers with close_notify. A
// handshake that chose ALPN "h2" hands its stream to an http2::Connection over the same TLS
// stream (hand_over_to_http2, nothing read yet) instead of serving HTTP/1.1; a cleartext one
// does so when the first bytes are the HTTP/2 preface (h2c with prior knowledge).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/intrusive/list.hpp>

#include "common/net/readiness_poller.h"
#include "router/http/read_hold.h"
#include "router/http/request_parser.h"
#include "router/http/responses.h"
#include "router/http/server_options.h"
#include "router/metrics/thread_stats.h"
#include "router/net/stream.h"

namespace benchgate::router::http2 {
class ConnectionBase;
}  // namespace benchgate::router::http2

namespace benchgate::router::http {

using SessionHook =
    boost::intrusive::list_base_hook<boost::intrusive::link_mode<boost::intrusive::auto_unlink>>;

// What a serving thread knows of its sessions, whatever their stream: how to close them.
class SessionBase : public SessionHook {
 public:
  virtual ~SessionBase() = default;
  // Closes the socket and cancels the timers; pending operations then end the session.
  virtual void close() = 0;
};

template <typename Stream>
class Session final : public SessionBase,
                      public ReadHolder,
                      private ::benchgate::net::Readable,
                      public std::enable_shared_from_this<Session<Stream>> {
 public:
  // `holds`: the serving thread's, used by cleartext sessions only (TLS sessions never hold:
  // their reads go through the TLS layer, which may hold bytes the socket does not show).
  // `poller`: the serving thread's readiness set (--http-io epoll, cleartext only), or null.
  Session(Stream socket, const ServerOptions& options, metrics::ThreadStats& stats,
          ReadHolds& holds, ::benchgate::net::ReadinessPoller* poller = nullptr);
  ~Session() override;
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  void start();
  void close() override;
  // ReadHolds::Release for cleartext sessions (the only ones that hold).
  static void release_held(ReadHolder& holder);

 private:
  using error_code = boost::system::error_code;

  enum class State : uint8_t {
    // TLS only: the handshake is under way; the deadline is --tls-handshake-timeout.
    kHandshaking,
    // Waiting for bytes of a request (a read, a read ahead into a held buffer or a wait for
    // readability is pending). The deadline: --idle-timeout, or what the partial request
    // allows (Partial).
    kReading,
    // Writing answers (out_, tail_); the idle timeout counts from the write's start.
    kWriting,
    // A /bench/delay answer waits for its instant (delay_timer_); idle timeout after it.
    kDelaying,
    // The last answer is written and the send side shut: input is read and dropped until the
    // peer closes or min(2 s, --idle-timeout) passes, which is not counted as a timeout.
    kLingering,
    // The client sent the HTTP/2 preface: the socket now belongs to an http2::Connection,
    // which keeps this session alive (and in its thread's list) while it runs.
    kHandedOver,
    // The socket is closed; completions that still arrive do nothing.
    kClosed,
  };

  // What the parser holds of a request that has not fully arrived, and since when: a header
  // must be complete within --header-timeout of its first byte, a body within --body-timeout
  // of its header (a slow body holds a buffer). Kept across writes of pipelined answers.
  struct Partial {
    enum class Kind : uint8_t { kNone, kHeader, kBody };
    Kind kind = Kind::kNone;
    int64_t since_ns = 0;
  };

  // A large body written straight from where it lies instead of being copied into out_.
  struct Tail {
    const char* data = nullptr;  // nullptr: the /bench/bytes pattern
    uint64_t offset = 0;
    uint64_t remaining = 0;
    bool active = false;
  };

  std::shared_ptr<Session> self() { return this->shared_from_this(); }
  // TLS: the handshake finished (ec: failed, counted by reason; a first byte that cannot open
  // a TLS connection, TlsStream::expect_first_byte, as not_tls).
  void on_handshake(const error_code& ec);
  // Reads behind a partial request, reads ahead into a held buffer, or (nothing buffered, no
  // buffer held) waits for readability first.
  void do_read();
  void on_readable(const error_code& ec);
  // --http-io epoll: the thread's set reports an edge (called by the poller, with the session
  // alive: its socket is open, so its deadline timer is pending). Reads now when reading,
  // otherwise remembers that the socket has bytes for the next do_read().
  void on_readable() override;
  // --http-io epoll: one read into the borrowed buffer; a short read (or none) means the
  // socket is drained and the next bytes make a new edge.
  void read_ready();
  void on_read(const error_code& ec, size_t bytes);
  // Before the first request: whether the connection opens with the HTTP/2 preface. true:
  // handled here (handed over, or reading the rest of a partial preface).
  bool took_http2();
  // The hold passed: reading ahead, the read is cancelled and on_read() waits for readability
  // without the buffer; otherwise an empty buffer goes back to the thread now.
  void release_read_buffer();
  void stop_holding() { ReadHolder::stop_holding(stats_.read_buffers_held); }
  // Gives the socket and `already_read` to an http2::Connection and stays alive beside it.
  // A TLS session whose handshake chose ALPN "h2" calls it the same way, with nothing read.
  void hand_over_to_http2(std::string_view already_read);
  // Before an asynchronous operation: an empty read buffer goes back to the thread (or is
  // freed), so that only connections with bytes left over, or holding, keep one.
  void park_input();
  // Parses what is buffered and queues answers, then advances.
  void process(int64_t now_ns);
  void parse(int64_t now_ns);
  // The next state, in the order answers go out: queued answers are written, then a delayed
  // answer waits, then a connection that gave its last answer lingers; otherwise it reads.
  void advance(int64_t now_ns);
  // The deadline while reading: idle, or what the partial request allows.
  int64_t read_deadline(int64_t now_ns) const;
  void respond(int64_t now_ns);
  void reject(const error_code& ec, int64_t now_ns);
  void do_write(int64_t now_ns);
  void on_write(const error_code& ec, size_t bytes);
  void start_delay();
  void on_delay(const error_code& ec);
  // Stops sending, then drains what the peer still sends so that it reads our last answer
  // instead of a reset.
  void linger();
  void on_linger_read(const error_code& ec, size_t bytes);
  // After an echo answer is written or refused: a body buffer past memory::kUnbudgetedBytes
  // is freed, which gives its bytes back to the budget.
  void release_body();
  void arm_deadline_timer(int64_t at_ns);
  void on_deadline(const error_code& ec);
  ConnectionHeader connection_header() const;

  Stream socket_;
  const ServerOptions& options_;
  const RouteLimits limits_;
  metrics::ThreadStats& stats_;
  ReadHolds& holds_;
  // --http-io epoll and the socket is in the set (null otherwise, and once handed over).
  ::benchgate::net::ReadinessPoller* poller_;
  // --http-io epoll: the socket may hold bytes not read yet (an edge came, and no read since
  // came back short), so the next do_read() reads instead of waiting for an edge.
  bool socket_readable_ = false;

  boost::beast::flat_buffer in_;
  std::string out_;
  std::string body_;
  memory::Reservation body_budget_;  // body_'s capacity past kUnbudgetedBytes
  std::optional<RequestParser> parser_;
  // Parse instants of the answers in out_/tail_, recorded in the histogram once written.
  std::vector<int64_t> pending_parsed_ns_;
  Tail tail_;
  std::array<boost::asio::const_buffer, 17> write_buffers_;

  // /bench/delay in progress: when to answer, and the request's parse instant (0: none).
  int64_t delay_until_ns_ = 0;
  int64_t delay_parsed_ns_ = 0;
  ConnectionHeader delay_connection_ = ConnectionHeader::kNone;
  boost::asio::steady_timer delay_timer_;

  // Lazy deadline: the timer fires at least every check_interval_ns_ and compares the clock
  // with deadline_ns_, so moving the deadline costs a store instead of a timer re-arm.
  int64_t deadline_ns_ = 0;
  Partial partial_;
  const int64_t check_interval_ns_;
  boost::asio::steady_timer deadline_timer_;

  State state_ = net::is_tls_v<Stream> ? State::kHandshaking : State::kReading;
  // The first bytes were checked for the HTTP/2 preface (they were not it).
  bool preface_checked_ = false;
  // The HTTP/2 connection this session handed its socket to.
  std::weak_ptr<http2::ConnectionBase> http2_;
  // The answer queued last is the connection's last (Connection: close, or an error): once it
  // is written the session lingers instead of reading.
  bool close_after_write_ = false;
};

using SessionList =
    boost::intrusive::list<SessionBase, boost::intrusive::constant_time_size<false>>;

extern template class Session<net::Stream>;
extern template class Session<net::TlsStream>;

}  // namespace benchgate::router::http
