// HTTP/1.1 connection handling (see session.h).
#include "router/http/session.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <span>

#include <boost/asio/write.hpp>
#include <boost/beast/http/error.hpp>

#include "common/net/asio_access.h"
#include "common/time/clock.h"
#include "common/util/thread_spare.h"
#include "router/http/posted_read_edges.h"
#include "router/http2/connection.h"
#include "router/http2/preface.h"
#include "router/metrics/inject_work.h"
#include "router/tls/first_byte.h"
#include "router/tls/handshake_outcome.h"

namespace benchgate::router::http {
namespace {

// router/http/posted_read_edges.h. Relaxed: a count, ordered with nothing; the path is rare.
std::atomic<uint64_t> edges_left_to_posted_reads_count{0};

namespace asio = boost::asio;
namespace beast = boost::beast;

constexpr size_t kReadChunk = 16 * 1024;
// Bodies up to this size are copied into the output buffer so that a batch of pipelined
// answers goes out in one write; larger ones are written from where they lie.
constexpr uint64_t kInlineBodyBytes = 16 * 1024;
// Pipelined answers are flushed once this much is queued.
constexpr size_t kFlushBytes = 64 * 1024;
constexpr int64_t kLingerNs = 2'000'000'000;

std::string_view allowed_methods(Route route) { return route == Route::kEcho ? "POST" : "GET"; }

// The serving thread's spare read buffer (common/util/thread_spare.h): a connection takes it
// when it becomes readable with nothing buffered and gives it back before its next
// asynchronous operation unless bytes are left over in it (a request that arrived in pieces,
// pipelined requests not answered yet). A session only runs on its own serving thread, and
// sessions of one thread never run at once.
struct InputTag {};
using SpareInput = ThreadSpare<InputTag, beast::flat_buffer>;

// The serving thread's spare output buffer, lent the same way: a connection takes it when it
// queues an answer with nothing queued, and gives it back once everything queued is written,
// usually before its turn ends (the answer fits in the socket buffer). A connection whose
// answer waits for the socket keeps it until the write completes; another connection of the
// thread then grows a buffer of its own, and the thread keeps the larger of the two, up to
// kMaxKeptOutput. So an idle connection, even after answering, holds no output buffer.
struct OutputTag {};
using SpareOutput = ThreadSpare<OutputTag, std::string>;
// Pipelined answers are flushed at kFlushBytes, so one more answer's head and inline body
// past that is the most a busy connection's buffer needs.
constexpr size_t kMaxKeptOutput = 2 * kFlushBytes;

}  // namespace

uint64_t edges_left_to_posted_reads() {
  return edges_left_to_posted_reads_count.load(std::memory_order_relaxed);
}

int64_t SessionContext::check_interval_for(const ServerOptions& options) {
  return std::min({options.idle_timeout_ns, options.header_timeout_ns, options.body_timeout_ns,
                   options.tls_handshake_timeout_ns});
}

template <typename Stream>
Session<Stream>::Session(Stream socket, SessionContext& context)
    : socket_(std::move(socket)),
      context_(context),
      body_budget_(context.options.buffer_budget.get(), memory::BudgetUser::http) {
  // No buffers: the read and output buffers are the thread's, taken when there is something to
  // read or to answer.
  ++context_.stats.connections_open;
}

template <typename Stream>
Session<Stream>::~Session() {
  drop_parser();
  stop_holding();
  --context_.stats.connections_open;
}

template <typename Stream>
void Session<Stream>::release_owner() {
  if (owner_ == nullptr) return;
  // close() took the session out of the wheel, so its hook is free for the list.
  const bool first = context_.closed.empty();
  context_.closed.push_back(*this);
  if (!first) return;
  asio::post(socket_.get_executor(), [&context = context_] {
    while (!context.closed.empty()) {
      auto& session = static_cast<SessionBase&>(context.closed.front());
      context.closed.pop_front();
      session.take_owner();  // the last reference, unless an operation still holds one
    }
  });
}

template <typename Stream>
void Session<Stream>::start(std::shared_ptr<Session> owner) {
  error_code ignored;
  auto& tcp = beast::get_lowest_layer(socket_);
  tcp.set_option(asio::ip::tcp::no_delay(true), ignored);
  // Synchronous write_some() in do_write() and read_some() in on_readable() must never block
  // the thread. The accept loop's sockets are non-blocking from accept4: no system call.
  ::benchgate::net::asio_access::set_non_blocking(tcp, ignored);
  owner_ = std::move(owner);
  const int64_t now = steady_now_ns();
  if constexpr (net::is_tls_v<Stream>) {
    // The accept loop registered the socket just now, in this call chain, on this serving
    // thread's one-thread io_context: its first wait after EAGAIN needs no re-arm either.
    ::benchgate::net::asio_access::clear_initial_read_edge(tcp);
    deadline_ns_ = now + context_.options.tls_handshake_timeout_ns;
    schedule_check(deadline_ns_, now);
    // A peer whose first byte cannot open a TLS connection fails the handshake at once
    // (counted as not_tls): OpenSSL's own first read tells, no peek and no wait of its own.
    socket_.expect_first_byte(tls::kHandshakeRecordType);
    socket_.async_handshake(asio::ssl::stream_base::server,
                            [self = self()](const error_code& ec) { self->on_handshake(ec); });
    return;
  }
  deadline_ns_ = now + context_.options.idle_timeout_ns;
  schedule_check(deadline_ns_, now);
  // --http-io epoll: once per socket; the set reports the first request's edge (at once when
  // it is already there). A socket the set cannot take waits through Asio instead.
  in_poller_ = context_.poller != nullptr && !context_.poller->add(tcp.native_handle(), *this);
  // In the set it need not be in the reactor's as well (asio_access.h, leave_reactor_set()).
  if (in_poller_) out_of_reactor_ = ::benchgate::net::asio_access::leave_reactor_set(tcp);
  do_read();
}

template <typename Stream>
bool Session<Stream>::rejoin_reactor() {
  if (!out_of_reactor_) return true;
  out_of_reactor_ = false;
  if (::benchgate::net::asio_access::rejoin_reactor_set(beast::get_lowest_layer(socket_))) {
    return true;
  }
  close();  // Asio would never see the socket's edges: better closed than stalled
  return false;
}

template <typename Stream>
void Session<Stream>::on_handshake(const error_code& ec) {
  if constexpr (net::is_tls_v<Stream>) {
    if (state_ != State::kHandshaking) return;
    if (ec) {
      context_.stats.tls.count_failure(socket_.opened_with_other_byte()
                                           ? metrics::TlsFailure::not_tls
                                           : tls::classify_handshake_error(ec));
      return close();
    }
    const metrics::TlsAlpn alpn = tls::count_handshake(socket_.native_handle(), context_.stats.tls);
    if (alpn == metrics::TlsAlpn::h2) {
      // h2 by ALPN: the HTTP/2 server takes the TLS stream over before anything is read (the
      // client's preface is the HTTP/2 connection's to check).
      hand_over_to_http2({});
      return;
    }
    // ALPN chose HTTP/1.1: the HTTP/2 preface would be a protocol the client did not ask for
    // (RFC 9113, 3.3); a client that offered no ALPN may still open with it.
    if (alpn == metrics::TlsAlpn::http1_1) preface_checked_ = true;
    state_ = State::kReading;
    deadline_ns_ = steady_now_ns() + context_.options.idle_timeout_ns;
    do_read();
  } else {
    (void)ec;
  }
}

template <typename Stream>
void Session<Stream>::close() {
  // A session that handed over: the thread closes its connection (SessionContext::handed_over).
  if (state_ == State::kHandedOver || state_ == State::kClosed) return;
  state_ = State::kClosed;
  stop_holding();
  net::close_stream(socket_);
  unschedule();
  if (delay_ != nullptr) delay_->timer.cancel();
  release_owner();
}

template <typename Stream>
void Session<Stream>::do_read() {
  state_ = State::kReading;
  if (in_poller_) {
    if (socket_readable_) {
      // Bytes are left in the socket (the last read filled the buffer, or an edge came while
      // writing): read them on the thread's next turn, not deeper in this call chain.
      asio::post(socket_.get_executor(), [self = self()] {
        if (self->state_ == State::kReading && self->socket_readable_) self->read_ready();
      });
      return;
    }
    // Drained: an empty buffer goes back to the thread, and the set reports the next edge.
    park_input();
    return;
  }
  if (in_.size() > 0) {
    // Part of a request is buffered: read behind it.
    socket_.async_read_some(
        in_.prepare(kReadChunk),
        [self = self()](const error_code& ec, size_t bytes) { self->on_read(ec, bytes); });
    return;
  }
  if (holding()) {
    // Cleartext, read recently: read ahead into the held buffer. Asio tries the read now
    // and, when it would block, leaves it with the reactor without re-arming the descriptor.
    socket_.async_read_some(
        in_.prepare(kReadChunk),
        [self = self()](const error_code& ec, size_t bytes) { self->on_read(ec, bytes); });
    return;
  }
  park_input();
  if (net::has_buffered_input(socket_)) {
    // The TLS layer holds bytes already: the socket will not become readable for them.
    asio::post(socket_.get_executor(), [self = self()] { self->on_readable({}); });
    return;
  }
  auto on_readable = [self = self()](const error_code& ec) { self->on_readable(ec); };
  if constexpr (net::is_tls_v<Stream>) {
    // Without an epoll_ctl when OpenSSL's last read emptied the socket (common/tls/tls_stream.h).
    socket_.async_wait_readable(std::move(on_readable));
  } else {
    socket_.async_wait(asio::socket_base::wait_read, std::move(on_readable));
  }
}

template <typename Stream>
void Session<Stream>::on_readable(const error_code& ec) {
  if (state_ != State::kReading) return;
  if (ec) return close();
  // in_ is empty here: take the thread's buffer (the socket is non-blocking).
  if (in_.capacity() == 0) SpareInput::lend(in_);
  error_code read_ec;
  const size_t bytes = socket_.read_some(in_.prepare(kReadChunk), read_ec);
  if (read_ec == asio::error::would_block || read_ec == asio::error::try_again) return do_read();
  on_read(read_ec, bytes);
}

template <typename Stream>
void Session<Stream>::on_readable() {
  // Reading with socket_readable_ set already: do_read() posted a read that has not run yet
  // (it posts whenever it finds the flag set, and only a read clears it), and that read takes
  // these bytes too. Reading them now as well left the posted read queued beside the next one
  // this read posts, or beside the write of an answer: more operations of one connection at
  // once than the two blocks Asio recycles a thread, so one of them allocated (tests/alloc).
  const bool read_posted = state_ == State::kReading && socket_readable_;
  if (read_posted) edges_left_to_posted_reads_count.fetch_add(1, std::memory_order_relaxed);
  socket_readable_ = true;
  if (state_ == State::kReading && !read_posted) read_ready();
}

template <typename Stream>
void Session<Stream>::read_ready() {
  if (in_.capacity() == 0) SpareInput::lend(in_);
  error_code read_ec;
  const size_t bytes = socket_.read_some(in_.prepare(kReadChunk), read_ec);
  if (read_ec == asio::error::would_block || read_ec == asio::error::try_again) {
    socket_readable_ = false;
    return do_read();
  }
  // A short read emptied the socket's queue: what arrives next makes a new edge.
  if (read_ec || bytes < kReadChunk) socket_readable_ = false;
  on_read(read_ec, bytes);
}

template <typename Stream>
void Session<Stream>::park_input() {
  if (in_.size() > 0 || in_.capacity() == 0 || holding()) return;
  // The thread keeps the larger of the two; the connection frees what it still holds.
  SpareInput::give_back(in_);
  buffer_given_back(context_.stats.read_buffers_held);
}

template <typename Stream>
void Session<Stream>::on_read(const error_code& ec, size_t bytes) {
  if (state_ != State::kReading) return;
  // The hold passed and release_read_buffer() cancelled the read ahead (close() leaves
  // kReading first): wait for readability without the buffer.
  if (ec == asio::error::operation_aborted && !holding()) return do_read();
  // End of stream or a reset: every complete request was already answered.
  if (ec) {
    stop_holding();
    park_input();
    return close();
  }
  in_.commit(bytes);
  context_.stats.counters.bytes_received += bytes;
  if (!preface_checked_ && took_http2()) return;
  const int64_t now_ns = steady_now_ns();
  if constexpr (!net::is_tls_v<Stream>) {
    if (!in_poller_ && context_.holds.enabled()) context_.holds.touch(*this, now_ns);
  }
  process(now_ns);
}

template <typename Stream>
void Session<Stream>::release_held(ReadHolder& holder) {
  static_cast<Session&>(holder).release_read_buffer();
}

template <typename Stream>
void Session<Stream>::release_read_buffer() {
  if (state_ == State::kReading && in_.size() == 0) {
    // The read ahead into the buffer is pending (or has just completed with bytes, which
    // on_read() then handles as usual, holding again).
    error_code ignored;
    beast::get_lowest_layer(socket_).cancel(ignored);
    return;
  }
  park_input();
}

template <typename Stream>
bool Session<Stream>::took_http2() {
  const auto first = static_cast<const char*>(in_.data().data());
  const std::string_view bytes(first, in_.size());
  switch (http2::match_preface(bytes)) {
    case http2::PrefaceMatch::kNo:
      preface_checked_ = true;
      return false;
    case http2::PrefaceMatch::kPartial:
      do_read();
      return true;
    case http2::PrefaceMatch::kFull:
      break;
  }
  hand_over_to_http2(bytes);
  in_.consume(in_.size());
  park_input();
  return true;
}

template <typename Stream>
void Session<Stream>::hand_over_to_http2(std::string_view already_read) {
  // The HTTP/2 connection waits through Asio: the socket goes back to the reactor's set first.
  if (!rejoin_reactor()) return;
  // The socket, and what was read of it, go to the HTTP/2 connection; this session only stays
  // alive (counted in connections_open, reachable by close()) as long as it runs.
  state_ = State::kHandedOver;
  stop_holding();
  if (in_poller_) {
    // ...and leaves the thread's set.
    context_.poller->remove(beast::get_lowest_layer(socket_).native_handle());
    in_poller_ = false;
  }
  unschedule();
  if (delay_ != nullptr) delay_->timer.cancel();
  // The connection owns the session from now on; owner_ lets go on the next turn, so that
  // the session outlives this call even if the connection ends at once.
  const auto executor = socket_.get_executor();
  auto connection = std::make_shared<http2::Connection<Stream>>(
      std::move(socket_), context_.options, context_.stats, self());
  context_.handed_over.push_back(*connection);
  if (owner_ != nullptr) asio::post(executor, [owner = std::move(owner_)] {});
  connection->start(already_read);
}

template <typename Stream>
void Session<Stream>::process(int64_t now_ns) {
  parse(now_ns);
  advance(now_ns);
}

template <typename Stream>
void Session<Stream>::parse(int64_t now_ns) {
  while (in_.size() > 0) {
    if (parser_ == nullptr) {
      parser_ = ParserSlots::make(context_.limits, context_.options.max_header_bytes,
                                  context_.options.max_body_bytes, body_, body_budget_);
    }
    error_code ec;
    const size_t used = parser_->put(in_.data(), ec);
    in_.consume(used);
    if (ec == beast::http::error::need_more) break;
    if (ec) {
      reject(ec, now_ns);
      break;
    }
    if (!parser_->is_done()) {
      if (used == 0) break;
      continue;
    }
    respond(now_ns);
    drop_parser();
    if (tail_active() || delaying() || close_after_write_ || out_.size() >= kFlushBytes) {
      break;
    }
  }

  Partial kind = Partial::kNone;
  if (parser_ && !parser_->is_header_done() && in_.size() > 0) kind = Partial::kHeader;
  if (parser_ && parser_->is_header_done() && !parser_->is_done()) kind = Partial::kBody;
  // A request's header (or body) is timed from the read that first left it partial.
  if (kind != partial_kind_) {
    partial_kind_ = kind;
    partial_since_ns_ = kind == Partial::kNone ? 0 : now_ns;
  }
}

template <typename Stream>
void Session<Stream>::drop_parser() {
  if (parser_ == nullptr) return;
  ParserSlots::destroy(parser_);
  parser_ = nullptr;
}

template <typename Stream>
void Session<Stream>::advance(int64_t now_ns) {
  if (!out_.empty() || tail_active()) return do_write(now_ns);
  if (delaying()) return start_delay();
  if (close_after_write_) return linger();
  deadline_ns_ = read_deadline(now_ns);
  do_read();
}

template <typename Stream>
int64_t Session<Stream>::read_deadline(int64_t now_ns) const {
  const int64_t idle = now_ns + context_.options.idle_timeout_ns;
  switch (partial_kind_) {
    case Partial::kNone:
      break;
    case Partial::kHeader:
      return partial_since_ns_ + context_.options.header_timeout_ns;
    case Partial::kBody:
      return std::min(idle, partial_since_ns_ + context_.options.body_timeout_ns);
  }
  return idle;
}

template <typename Stream>
ConnectionHeader Session<Stream>::connection_header() const {
  if (!parser_->keep_alive()) return ConnectionHeader::kClose;
  return parser_->http_version() == 10 ? ConnectionHeader::kKeepAlive : ConnectionHeader::kNone;
}

template <typename Stream>
void Session<Stream>::respond(int64_t now_ns) {
  const Dispatch& dispatch = parser_->dispatch();
  const ConnectionHeader connection = connection_header();
  if (connection == ConnectionHeader::kClose) close_after_write_ = true;
  context_.stats.counters.count_request(dispatch.route, dispatch.status);
  metrics::inject_work(context_.options.inject_work_ns);
  // A delayed answer is queued by on_delay(): the buffer is not taken for the wait.
  if (dispatch.action != Action::kDelay) take_output();

  switch (dispatch.action) {
    case Action::kHello:
      if (connection == ConnectionHeader::kNone) {
        out_.append(hello_response());
      } else {
        append_head(out_, 200, kHelloBody.size(), "text/plain", connection);
        out_.append(kHelloBody);
      }
      break;
    case Action::kBytes:
      append_head(out_, 200, dispatch.param, "text/plain", connection);
      if (dispatch.param <= kInlineBodyBytes) {
        append_pattern(out_, dispatch.param);
      } else {
        start_tail(Tail{nullptr, 0, dispatch.param, true});
      }
      break;
    case Action::kEcho:
      append_head(out_, 200, body_.size(), "application/octet-stream", connection);
      if (body_.size() <= kInlineBodyBytes) {
        out_.append(body_);
        release_body();
      } else {
        start_tail(Tail{body_.data(), 0, body_.size(), true});
      }
      break;
    case Action::kDelay:
      // Answered by on_delay(), which records the handling time then.
      if (delay_ == nullptr) delay_ = std::make_unique<Delay>(socket_.get_executor());
      delay_->until_ns = now_ns + static_cast<int64_t>(dispatch.param) * 1'000'000;
      delay_->parsed_ns = now_ns;
      delay_->connection = connection;
      return;
    case Action::kError:
      append_error(out_, dispatch.status, connection,
                   dispatch.status == 405 ? allowed_methods(dispatch.route) : "");
      break;
  }
  answer_queued(now_ns);
}

template <typename Stream>
void Session<Stream>::take_output() {
  if (out_.empty()) SpareOutput::lend(out_);
}

template <typename Stream>
void Session<Stream>::park_output() {
  out_.clear();
  SpareOutput::give_back(out_, kMaxKeptOutput);
}

template <typename Stream>
void Session<Stream>::reject(const error_code& ec, int64_t now_ns) {
  int status = 400;
  if (ec == beast::http::error::header_limit) status = 431;
  if (ec == beast::http::error::body_limit) status = 413;
  if (parser_->refusal_status() != 0) status = parser_->refusal_status();
  const Route route = parser_->has_request_line() ? parser_->dispatch().route : Route::kOther;
  // 503: the request was sound, the router had no room for its body (counted by the budget).
  if (status != 503) ++context_.stats.counters.parse_errors;
  context_.stats.counters.count_request(route, status);
  take_output();
  append_error(out_, status, ConnectionHeader::kClose);
  answer_queued(now_ns);
  // The parser cannot resume after an error: answer, then close.
  close_after_write_ = true;
  drop_parser();
  in_.consume(in_.size());
  release_body();
}

template <typename Stream>
void Session<Stream>::release_body() {
  release_body_buffer(body_, body_budget_);
}

template <typename Stream>
void Session<Stream>::start_tail(const Tail& tail) {
  if (large_ == nullptr) large_ = std::make_unique<LargeAnswer>();
  large_->tail = tail;
}

template <typename Stream>
void Session<Stream>::do_write(int64_t now_ns) {
  state_ = State::kWriting;
  deadline_ns_ = now_ns + context_.options.idle_timeout_ns;
  auto handler = [self = self()](const error_code& ec, size_t bytes) { self->on_write(ec, bytes); };
  if (!tail_active()) {
    // Usually the whole answer fits in the socket buffer: send it now and carry on without a
    // trip through the event loop. Only what does not fit is left to async_write (over TLS
    // that starts with the rest of a record the socket did not take, common/tls/tls_stream.h).
    asio::const_buffer buffer = asio::buffer(out_);
    error_code ec;
    const size_t written = socket_.write_some(buffer, ec);
    if (!ec && written == buffer.size()) return on_write(ec, written);
    if (ec && ec != asio::error::would_block && ec != asio::error::try_again) return close();
    context_.stats.counters.bytes_sent += written;
    buffer += written;
    park_input();
    if (!rejoin_reactor()) return;
    // One buffer: the operation keeps its own copy of it.
    asio::async_write(socket_, buffer, std::move(handler));
    return;
  }
  auto& buffers = large_->buffers;
  Tail& tail = large_->tail;
  size_t count = 0;
  if (!out_.empty()) buffers[count++] = asio::buffer(out_);
  const std::string_view block = pattern_block();
  while (count < buffers.size() && tail.remaining > 0) {
    // The pattern goes out as whole blocks (whole periods); an echo body in one piece.
    const char* base = tail.data != nullptr ? tail.data + tail.offset : block.data();
    const uint64_t limit = tail.data != nullptr ? tail.remaining : block.size();
    const size_t piece = static_cast<size_t>(std::min(tail.remaining, limit));
    buffers[count++] = asio::const_buffer(base, piece);
    tail.offset += piece;
    tail.remaining -= piece;
  }
  park_input();
  if (!rejoin_reactor()) return;
  if (count == 1) {
    asio::async_write(socket_, buffers[0], std::move(handler));
  } else {
    asio::async_write(socket_, std::span<const asio::const_buffer>(buffers.data(), count),
                      std::move(handler));
  }
}

template <typename Stream>
void Session<Stream>::on_write(const error_code& ec, size_t bytes) {
  if (state_ != State::kWriting) return;
  if (ec) return close();
  context_.stats.counters.bytes_sent += bytes;
  park_output();
  const int64_t now_ns = steady_now_ns();
  if (tail_active()) {
    if (large_->tail.remaining > 0) return do_write(now_ns);
    large_->tail = Tail{};
    release_body();
  }
  if (pending_delayed_) {
    context_.stats.handling.record(now_ns - delay_->queued_parsed_ns);
    pending_delayed_ = false;
  }
  if (pending_count_ > 0) {
    context_.stats.handling.record_n(now_ns - pending_parsed_ns_, pending_count_);
    pending_count_ = 0;
  }
  // A delayed answer precedes a close: only the request that asked for the delay (or one
  // before it) can have asked to close, and nothing after it was parsed yet.
  if (delaying() || close_after_write_) return advance(now_ns);
  process(now_ns);
}

template <typename Stream>
void Session<Stream>::start_delay() {
  state_ = State::kDelaying;
  park_input();
  deadline_ns_ = delay_->until_ns + context_.options.idle_timeout_ns;
  delay_->timer.expires_at(steady_point(delay_->until_ns));
  delay_->timer.async_wait([self = self()](const error_code& ec) { self->on_delay(ec); });
}

template <typename Stream>
void Session<Stream>::on_delay(const error_code& ec) {
  if (state_ != State::kDelaying || ec) return;
  take_output();
  append_head(out_, 200, 0, {}, delay_->connection);
  delay_->queued_parsed_ns = delay_->parsed_ns;
  pending_delayed_ = true;
  delay_->until_ns = 0;
  process(steady_now_ns());
}

template <typename Stream>
void Session<Stream>::linger() {
  state_ = State::kLingering;
  stop_holding();
  const int64_t now_ns = steady_now_ns();
  deadline_ns_ = now_ns + std::min(kLingerNs, context_.options.idle_timeout_ns);
  schedule_check(deadline_ns_, now_ns);
  in_.consume(in_.size());
  if constexpr (net::is_tls_v<Stream>) {
    // close_notify; OpenSSL then discards what the peer still sends until its close_notify
    // or its close, which ends the session.
    park_input();
    socket_.async_shutdown([self = self()](const error_code&) {
      if (self->state_ == State::kLingering) self->close();
    });
  } else {
    net::half_close(socket_);
    if (!rejoin_reactor()) return;
    socket_.async_read_some(in_.prepare(kReadChunk),
                            [self = self()](const error_code& read_ec, size_t bytes) {
                              self->on_linger_read(read_ec, bytes);
                            });
  }
}

template <typename Stream>
void Session<Stream>::on_linger_read(const error_code& ec, size_t bytes) {
  if (state_ != State::kLingering) return;
  if (ec) return close();
  context_.stats.counters.bytes_received += bytes;
  socket_.async_read_some(
      in_.prepare(kReadChunk),
      [self = self()](const error_code& read_ec, size_t n) { self->on_linger_read(read_ec, n); });
}

template <typename Stream>
void Session<Stream>::schedule_check(int64_t at_ns, int64_t now_ns) {
  context_.deadlines.schedule(*this, std::min(at_ns, now_ns + context_.check_interval_ns), now_ns);
}

template <typename Stream>
void Session<Stream>::check_deadline(int64_t now_ns) {
  if (state_ == State::kClosed || state_ == State::kHandedOver) return;
  if (now_ns >= deadline_ns_) {
    if (state_ == State::kHandshaking) {
      context_.stats.tls.count_failure(metrics::TlsFailure::timeout);
    } else if (state_ != State::kLingering) {
      ++context_.stats.counters.timed_out;
    }
    return close();
  }
  // Every deadline is set at least one check interval after the moment it is set (or, for a
  // header, after the header started, which is never before the last check), so checking
  // this often never finds one late by more than the wheel's tick.
  schedule_check(deadline_ns_, now_ns);
}

template class Session<net::Stream>;
template class Session<net::TlsStream>;

}  // namespace benchgate::router::http
