// One HTTP/1.1 connection: reads requests, answers them in order (pipelined requests found in
// one read are answered with one write), and enforces the size limits and timeouts.
//
// Hot path: the echo body belongs to the connection and is reused; the read buffer is the
// serving thread's, lent to a connection while it has something to read, and so is the output
// buffer while an answer is queued or being written (an idle connection holds neither); the
// parser is rebuilt in place; fixed responses are copied from bytes serialised once. A
// cleartext connection that has just read keeps the read buffer for --read-buffer-hold and
// reads ahead into it, which spares the epoll_ctl of a wait for readability per request
// (router/http/read_hold.h); then it gives the buffer back and waits for readability again.
// With --http-io epoll a cleartext connection instead waits in the serving thread's
// edge-triggered epoll set (common/net/readiness_poller.h), added once: told it is readable,
// it borrows the buffer, reads until a short read and gives the buffer back before it waits
// again, so a request costs its recv and its send and an idle connection still holds no
// buffer. Errors are error_codes, counted by kind. A session lives on exactly one serving
// thread and is only touched from it.
//
// The connection's state is one field (State): which operation is pending, and so which
// deadline applies. The deadlines are checked by the serving thread's one timer
// (router/http/deadline_wheel.h), not by a timer of the session's: an idle connection holds
// its socket, this object and the pending wait for readability (none with --http-io epoll).
// A session owns itself (owner_) from start() until it closes or hands its socket over, so
// that one with no operation pending (--http-io epoll) stays alive; the parts only some
// answers use (the /bench/delay timer, the gather list of a large answer) are allocated on
// a connection's first such answer and kept; the parser is the thread's, lent while a request
// is in progress (router/http/parser_slots.h). Every completion handler first checks that
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
#include "router/http/deadline_wheel.h"
#include "router/http/parser_slots.h"
#include "router/http/read_hold.h"
#include "router/http/request_parser.h"
#include "router/http/responses.h"
#include "router/http/server_options.h"
#include "router/metrics/thread_stats.h"
#include "router/net/stream.h"

namespace benchgate::router::http {

// What a serving thread knows of its sessions, whatever their stream: how to close them, and
// how to tell one that its deadline may have passed. The thread reaches every open session
// through its hook (an open one is always in the thread's DeadlineWheel), and the HTTP/2
// connections that sessions handed their sockets to through SessionContext::handed_over.
class SessionBase : public DeadlineEntry {
 public:
  virtual ~SessionBase() = default;
  // Closes the socket and leaves the thread's deadlines; pending operations then end the
  // session, and it lets go of itself on the thread's next turn.
  virtual void close() = 0;
  // The thread's DeadlineWheel::Due for its sessions.
  static void on_due(DeadlineEntry& entry, int64_t now_ns) {
    static_cast<SessionBase&>(entry).check_deadline(now_ns);
  }
  // The session's reference to itself, given up (SessionContext::closed).
  virtual std::shared_ptr<SessionBase> take_owner() = 0;

 protected:
  // The tick the session was scheduled for came: closes it when its deadline has passed
  // (counted as a timeout, or a TLS handshake failure), otherwise schedules the next check.
  virtual void check_deadline(int64_t now_ns) = 0;
};

// What the sessions of one serving thread share (router/http/serving_thread.h owns it): one
// reference in each session instead of one per part.
struct SessionContext {
  SessionContext(const ServerOptions& options_in, metrics::ThreadStats& stats_in,
                 ReadHolds& holds_in, DeadlineWheel& deadlines_in)
      : options(options_in),
        limits(options_in.route_limits()),
        stats(stats_in),
        holds(holds_in),
        deadlines(deadlines_in),
        check_interval_ns(check_interval_for(options_in)) {}

  // The shortest of the session timeouts: a deadline is checked at least this often, so one
  // set this far ahead or more is never found late (session.cc, check_deadline()).
  static int64_t check_interval_for(const ServerOptions& options);

  const ServerOptions& options;
  const RouteLimits limits;
  metrics::ThreadStats& stats;
  // The cleartext sessions holding their read buffer between requests (--read-buffer-hold).
  ReadHolds& holds;
  DeadlineWheel& deadlines;
  const int64_t check_interval_ns;
  // --http-io epoll on a cleartext port: the thread's edge-triggered readiness set; null
  // otherwise.
  ::benchgate::net::ReadinessPoller* poller = nullptr;
  // The HTTP/2 connections sessions handed their sockets to (http2::ConnectionBase, each
  // keeping its session alive): closed by the thread when it stops.
  DeadlineList handed_over;
  // Sessions closed on this turn, out of the wheel, each still owning itself: one handler
  // posted by the first of them lets go of them all on the thread's next turn, after whatever
  // called close() has returned. A handler per session would queue one Asio operation per
  // connection when many close at once (64 bytes each, which then stay in the allocator).
  DeadlineList closed;
};

template <typename Stream>
class Session final : public SessionBase, public ReadHolder, private ::benchgate::net::Readable {
 public:
  // `context`: the serving thread's. Its read holds are used by cleartext sessions only (TLS
  // sessions never hold: their reads go through the TLS layer, which may hold bytes the
  // socket does not show), and so is its readiness set (--http-io epoll).
  Session(Stream socket, SessionContext& context);
  ~Session() override;
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Call once, with the shared_ptr the session was made in: the session keeps it (owner_)
  // until it closes or hands its socket over.
  void start(std::shared_ptr<Session> owner);
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
    // Writing answers (out_, then large_->tail); the idle timeout counts from the write's start.
    kWriting,
    // A /bench/delay answer waits for its instant (delay_->timer); idle timeout after it.
    kDelaying,
    // The last answer is written and the send side shut: input is read and dropped until the
    // peer closes or min(2 s, --idle-timeout) passes, which is not counted as a timeout.
    kLingering,
    // The client sent the HTTP/2 preface: the socket now belongs to an http2::Connection,
    // which keeps this session alive (counted in connections_open) while it runs; the
    // thread reaches the connection (SessionContext::handed_over), not the session.
    kHandedOver,
    // The socket is closed; completions that still arrive do nothing.
    kClosed,
  };

  // What the parser holds of a request that has not fully arrived (partial_kind_), and since
  // when (partial_since_ns_): a header must be complete within --header-timeout of its first
  // byte, a body within --body-timeout of its header (a slow body holds a buffer). Kept across
  // writes of pipelined answers.
  enum class Partial : uint8_t { kNone, kHeader, kBody };

  // A large body written straight from where it lies instead of being copied into out_.
  struct Tail {
    const char* data = nullptr;  // nullptr: the /bench/bytes pattern
    uint64_t offset = 0;
    uint64_t remaining = 0;
    bool active = false;
  };
  // What a large answer needs (allocated on the connection's first one and kept): its tail
  // and the gather list of a write (the answers in out_, then pieces of the tail).
  struct LargeAnswer {
    Tail tail;
    std::array<boost::asio::const_buffer, 17> buffers;
  };
  // A /bench/delay answer waiting for its instant (allocated on the connection's first one
  // and kept): when to answer, the request's parse instant, and its Connection header.
  struct Delay {
    explicit Delay(const boost::asio::any_io_executor& executor) : timer(executor) {}
    int64_t until_ns = 0;  // 0: none in progress
    int64_t parsed_ns = 0;
    // The parse instant of the delayed answer queued in out_ (pending_delayed_): a request
    // parsed after it may start the next delay before it is written.
    int64_t queued_parsed_ns = 0;
    ConnectionHeader connection = ConnectionHeader::kNone;
    boost::asio::steady_timer timer;
  };

  // For the handlers of operations started while the session is open (owner_ is set).
  std::shared_ptr<Session> self() const { return owner_; }
  std::shared_ptr<SessionBase> take_owner() override { return std::move(owner_); }
  bool tail_active() const { return large_ != nullptr && large_->tail.active; }
  bool delaying() const { return delay_ != nullptr && delay_->until_ns != 0; }
  // Lets go of owner_ on the thread's next turn (SessionContext::closed): the caller, or the
  // poller's dispatch that called it, may still be using the session.
  void release_owner();
  // TLS: the handshake finished (ec: failed, counted by reason; a first byte that cannot open
  // a TLS connection, TlsStream::expect_first_byte, as not_tls).
  void on_handshake(const error_code& ec);
  // Reads behind a partial request, reads ahead into a held buffer, or (nothing buffered, no
  // buffer held) waits for readability first.
  void do_read();
  void on_readable(const error_code& ec);
  // --http-io epoll: the thread's set reports an edge (called by the poller, with the session
  // alive: it owns itself while open, and a closed one lets go only on the thread's next
  // turn, after the dispatch). Reads now when reading and no read is posted (do_read() posts
  // one when the socket may hold more); otherwise remembers that the socket has bytes, for that
  // read or the next do_read(). One read of a connection queued at a time (session.cc).
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
  void stop_holding() { ReadHolder::stop_holding(context_.stats.read_buffers_held); }
  // Gives the socket and `already_read` to an http2::Connection and stays alive beside it.
  // A TLS session whose handshake chose ALPN "h2" calls it the same way, with nothing read.
  void hand_over_to_http2(std::string_view already_read);
  // Before an asynchronous operation: an empty read buffer goes back to the thread (or is
  // freed), so that only connections with bytes left over, or holding, keep one.
  void park_input();
  // Parses what is buffered and queues answers, then advances.
  void process(int64_t now_ns);
  void parse(int64_t now_ns);
  // Before an Asio operation on the socket: back in the reactor's epoll set if it left it
  // (false: that failed and the session closed).
  bool rejoin_reactor();
  // The request is done (answered or refused): its parser's slot goes back to the thread.
  void drop_parser();
  // The next state, in the order answers go out: queued answers are written, then a delayed
  // answer waits, then a connection that gave its last answer lingers; otherwise it reads.
  void advance(int64_t now_ns);
  // The deadline while reading: idle, or what the partial request allows.
  int64_t read_deadline(int64_t now_ns) const;
  void respond(int64_t now_ns);
  // An answer parsed at now_ns was queued in out_ (or as the tail).
  void answer_queued(int64_t now_ns) {
    pending_parsed_ns_ = now_ns;
    ++pending_count_;
  }
  // An answer is about to be queued: with nothing queued, out_ becomes the thread's spare.
  void take_output();
  // Everything queued was written: out_ goes back to the thread (SpareOutput, session.cc).
  void park_output();
  // A large body is to be written from where it lies (allocates large_ the first time).
  void start_tail(const Tail& tail);
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
  // goes back to the thread's spares or is freed (release_body_buffer, request_parser.h), and
  // its bytes go back to the budget.
  void release_body();
  // The next deadline check: at at_ns or one check interval from now, whichever is first.
  void schedule_check(int64_t at_ns, int64_t now_ns);
  void check_deadline(int64_t now_ns) override;
  ConnectionHeader connection_header() const;

  Stream socket_;
  SessionContext& context_;
  // From start() until close() or the hand-over (then released on the next turn).
  std::shared_ptr<Session> owner_;

  boost::beast::flat_buffer in_;
  std::string out_;
  std::string body_;
  memory::Reservation body_budget_;  // body_'s capacity past kUnbudgetedBytes
  // While a request is in progress: its parser, in a slot of the thread's (parser_slots.h).
  RequestParser* parser_ = nullptr;
  std::unique_ptr<LargeAnswer> large_;
  std::unique_ptr<Delay> delay_;

  // Lazy deadline: the thread's wheel calls check_deadline() at least every check interval,
  // which compares the clock with deadline_ns_, so moving the deadline costs a store.
  int64_t deadline_ns_ = 0;
  int64_t partial_since_ns_ = 0;
  // The answers in out_ (and the tail) not written yet, recorded in the handling histogram
  // once written: pending_count_ parsed at pending_parsed_ns_, after the delayed answer
  // (parsed at delay_->queued_parsed_ns) when pending_delayed_. Answers parsed at different
  // instants never wait together otherwise: out_ is written before the next parse() (one
  // instant for all it queues), and only a delayed answer is queued by another call.
  int64_t pending_parsed_ns_ = 0;

  State state_ = net::is_tls_v<Stream> ? State::kHandshaking : State::kReading;
  Partial partial_kind_ = Partial::kNone;
  // --http-io epoll and the socket is in the thread's set (not once handed over).
  bool in_poller_ : 1 = false;
  // In the set, its socket was taken out of the reactor's epoll set; rejoin_reactor() puts it
  // back before the session's first Asio operation on it.
  bool out_of_reactor_ : 1 = false;
  // --http-io epoll: the socket may hold bytes not read yet (an edge came, and no read since
  // came back short), so the next do_read() reads instead of waiting for an edge.
  bool socket_readable_ : 1 = false;
  // The first bytes were checked for the HTTP/2 preface (they were not it).
  bool preface_checked_ : 1 = false;
  // The answer queued last is the connection's last (Connection: close, or an error): once it
  // is written the session lingers instead of reading.
  bool close_after_write_ : 1 = false;
  bool pending_delayed_ : 1 = false;
  uint32_t pending_count_ = 0;
};

extern template class Session<net::Stream>;
extern template class Session<net::TlsStream>;

}  // namespace benchgate::router::http
