// WAMP over WebSocket (client role): the upgrade asks for the serializer's subprotocol and must
// get it back; JSON travels in text messages, the binary serializers in binary ones. With TLS
// (wss, ChannelOptions::tls) the link runs over OpenSSL on the socket's own descriptor
// (common/tls/tls_stream.h) with the HTTP drivers' client context, and the upgrade follows the
// TLS handshake.
//
// The upgrade is Beast's HTTP; the frames are the worker's own (websocket_framing.h), so that
// a payload costs one pass on its way out (masked while it is copied into the send buffer, up
// to kSendChunk bytes per write: small messages queued by then go in the same write) and
// none on its way in: a message in one frame is handed over where it lies in the read buffer,
// which grows to hold the frame its header announces (as RawSocket's does); the frames of a
// fragmented message are read straight into the message buffer, sized from each frame header. A
// ping is answered with a pong between two messages; a close frame from the router ends the link
// (kShortRead), as does the end of the stream. Text messages are not checked for UTF-8 here: the
// JSON decoder checks every string it reads.
//
// Each link is a fresh stream held by shared_ptr, with its buffers: completions still pending
// on a closed link keep it alive until they run and are ignored (docs/CONTRIBUTING.md, rule 7).
// The reads and writes of messages take their operations' memory from the thread's pool
// (common/util/pooled_handler.h): nothing is allocated per message.
#include <algorithm>
#include <cctype>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <string_view>

#include <openssl/sha.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/field.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>
#include <boost/beast/websocket/error.hpp>

#include "common/serialization/base64.h"
#include "common/time/clock.h"
#include "common/tls/client_errors.h"
#include "common/util/pooled_handler.h"
#include "worker/http/tls_client.h"
#include "worker/wamp/channel.h"
#include "worker/wamp/errors.h"
#include "worker/wamp/send_queue.h"
#include "worker/wamp/websocket_framing.h"

namespace benchgate::worker::wamp {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using boost::system::error_code;

// Bytes read at a time when no frame payload is being read straight into its message.
constexpr size_t kReadChunk = 64 * 1024;
// The largest message read when the plan sets no limit (Beast's default read_message_max).
constexpr uint64_t kDefaultMaxMessage = 16 * 1024 * 1024;
// Room past a frame when the read buffer grows to hold one.
constexpr size_t kGrowthSlack = 4096;
// At most this many bytes of frames go out per write (a larger message takes several).
constexpr size_t kSendChunk = 1 << 20;
// A message queued behind the first joins its write when the write's payload stays within
// this with it: small messages leave together, large ones one at a time (masking a large
// batch into the buffer before writing any of it would hold the first message back).
constexpr size_t kJoinBelow = 64 * 1024;

// What one connection reads and writes, besides its stream.
struct LinkState {
  // The upgrade.
  bhttp::request<bhttp::empty_body> request;
  std::optional<bhttp::response_parser<bhttp::empty_body>> response;
  beast::flat_buffer handshake_buffer;
  std::string accept;  // the Sec-WebSocket-Accept the router must answer
  // Reading: bytes read and not yet taken are in[begin, end).
  std::vector<uint8_t> in;
  size_t begin = 0;
  size_t end = 0;
  ws::HeaderParser parser;
  bool in_frame = false;  // a header was parsed, frame_left payload bytes are to come
  uint64_t frame_left = 0;
  ws::FrameHeader frame;
  bool in_message = false;  // a data frame without FIN was read
  std::vector<uint8_t> message;
  size_t message_size = 0;
  std::array<uint8_t, 125> control{};
  size_t control_size = 0;
  // Writing.
  std::vector<uint8_t> out;
  size_t sent = 0;         // payload bytes of the front message already framed
  size_t frame_start = 0;  // payload offsets where the frame under way begins and ends
  size_t frame_end = 0;
  bool framing = false;  // the front message's first frame was written
  std::array<uint8_t, 4> key{};
  bool pong_due = false;
  std::array<uint8_t, 125> pong{};
  size_t pong_size = 0;
};

template <bool kTls>
struct Link;

template <>
struct Link<false> : LinkState {
  explicit Link(asio::io_context& io) : socket_(io) {}
  asio::ip::tcp::socket& socket() { return socket_; }
  asio::ip::tcp::socket& stream() { return socket_; }
  asio::ip::tcp::socket socket_;
};

// OpenSSL on the socket's own descriptor (common/tls/tls_stream.h, as the HTTP connections'
// TLS): a read decrypts every record the socket brought, so the answers to a batch of calls
// are taken in one read, as over TCP. The stream is made once the socket is connected.
template <>
struct Link<true> : LinkState {
  explicit Link(asio::io_context& io) : socket_(io) {}
  asio::ip::tcp::socket& socket() { return socket_; }
  http::TlsSocket& stream() { return *tls; }
  asio::ip::tcp::socket socket_;
  std::optional<http::TlsSocket> tls;
};

// base64(SHA-1(key + the RFC 6455 GUID)), RFC 6455 section 4.2.2.
std::string expected_accept(const std::string& key) {
  const std::string text = key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
  uint8_t digest[SHA_DIGEST_LENGTH];
  SHA1(reinterpret_cast<const unsigned char*>(text.data()), text.size(), digest);
  std::string out(serialization::base64_size(sizeof digest), '\0');
  serialization::base64_encode(digest, out.data());
  return out;
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  }
  return true;
}

template <bool kTls>
class WebSocketChannel : public Channel {
 public:
  WebSocketChannel(asio::io_context& io, const ChannelOptions& options, ChannelEvents& events,
                   ThreadStats& stats, bool count_bytes, ThreadState* thread)
      : io_(io),
        options_(options),
        events_(events),
        stats_(stats),
        count_bytes_(count_bytes),
        thread_(thread),
        rng_((uint64_t{std::random_device{}()} << 32) | std::random_device{}()) {}

  void open(OpenDone done) override {
    close();
    link_ = std::make_shared<Link<kTls>>(io_);
    auto link = link_;
    link->socket().async_connect(
        options_.endpoint,
        [this, link, g = generation_, done = std::move(done)](const error_code& ec) mutable {
          if (g != generation_) return;
          if (ec) {
            close();
            return done(ec);
          }
          error_code ignored;
          link->socket().set_option(asio::ip::tcp::no_delay(true), ignored);
          if constexpr (kTls) {
            link->tls.emplace(link->socket(), *options_.tls);
            SSL* ssl = link->stream().native_handle();
            http::prepare_connection(ssl, options_.sni, options_.verify_host);
            if (options_.tls_resumption) saved_session_.offer(ssl);
            link->stream().async_handshake(
                asio::ssl::stream_base::client,
                [this, link, g, done = std::move(done)](const error_code& hec) mutable {
                  if (g != generation_) return;
                  if (hec) {
                    const error_code why =
                        tls::client_handshake_error(link->stream().native_handle(), hec);
                    close();
                    return done(why);
                  }
                  tls_handshake_done(thread_, link->stream().native_handle());
                  // The Upgrade is HTTP/1.1: a server that selected another protocol (h2 from
                  // alpn = ["h2", "http/1.1"]) would read it as that protocol's bytes.
                  if (const error_code alpn =
                          tls::websocket_alpn_error(link->stream().native_handle())) {
                    close();
                    return done(alpn);
                  }
                  upgrade(link, std::move(done));
                });
          } else {
            upgrade(link, std::move(done));
          }
        });
  }

  // The WebSocket upgrade (RFC 6455 section 4.1) on a connected (and, with TLS, handshaken)
  // link.
  void upgrade(const std::shared_ptr<Link<kTls>>& link, OpenDone done) {
    const uint32_t g = generation_;
    std::array<uint8_t, 16> nonce;
    for (size_t i = 0; i < nonce.size(); i += 8) {
      const uint64_t r = next_random();
      std::memcpy(nonce.data() + i, &r, 8);
    }
    std::string key(serialization::base64_size(nonce.size()), '\0');
    serialization::base64_encode(nonce, key.data());
    link->accept = expected_accept(key);
    auto& request = link->request;
    request.method(bhttp::verb::get);
    request.target("/");
    request.version(11);
    request.set(bhttp::field::host, options_.host);
    request.set(bhttp::field::upgrade, "websocket");
    request.set(bhttp::field::connection, "Upgrade");
    request.set(bhttp::field::sec_websocket_key, key);
    request.set(bhttp::field::sec_websocket_version, "13");
    request.set(bhttp::field::sec_websocket_protocol, subprotocol(options_.serializer));
    request.set(bhttp::field::user_agent, "benchgate-worker");
    bhttp::async_write(
        link->stream(), request,
        [this, link, g, done = std::move(done)](const error_code& wec, size_t) mutable {
          if (g != generation_) return;
          if (wec) {
            close();
            return done(wec);
          }
          link->response.emplace();
          link->response->skip(false);
          bhttp::async_read(link->stream(), link->handshake_buffer, *link->response,
                            [this, link, g, done = std::move(done)](const error_code& rec, size_t) {
                              if (g != generation_) return;
                              if (rec) {
                                close();
                                return done(rec);
                              }
                              if (error_code ec = check_upgrade(*link); ec) {
                                close();
                                return done(ec);
                              }
                              // Bytes after the 101 response are frames already.
                              link->in.resize(std::max(kReadChunk, link->handshake_buffer.size()));
                              const auto rest = link->handshake_buffer.data();
                              std::memcpy(link->in.data(), rest.data(), rest.size());
                              link->end = rest.size();
                              count_received(rest.size());
                              link->response.reset();
                              link->handshake_buffer = {};
                              up_ = true;
                              done({});
                              if (g == generation_) process(link);
                            });
        });
  }

  // The 101 answer, its Sec-WebSocket-Accept and the subprotocol.
  error_code check_upgrade(Link<kTls>& link) {
    const auto& response = link.response->get();
    namespace websocket = beast::websocket;
    if (response.result() != bhttp::status::switching_protocols ||
        !iequals(response[bhttp::field::upgrade], "websocket")) {
      return websocket::make_error_code(websocket::error::upgrade_declined);
    }
    if (std::string_view(response[bhttp::field::sec_websocket_accept]) != link.accept) {
      return websocket::make_error_code(websocket::error::bad_sec_accept);
    }
    if (response[bhttp::field::sec_websocket_protocol] != subprotocol(options_.serializer)) {
      return make_error_code(JoinError::kNoSubprotocol);
    }
    return {};
  }

  void send(std::span<const uint8_t> head, std::span<const uint8_t> tail) override {
    OutMessage& m = queue_.push();
    m.head.assign(head.begin(), head.end());
    m.tail = tail;
    flush();
  }

  void send_taking(std::vector<uint8_t>& bytes) override {
    OutMessage& m = queue_.push();
    std::swap(m.head, bytes);
    flush();
  }

  size_t queued() const override { return queue_.size(); }

  void close() override {
    ++generation_;
    if (link_) {
      error_code ignored;
      if constexpr (kTls) {
        if (link_->tls) http::closing(link_->stream().native_handle());
      }
      link_->socket().close(ignored);
      link_.reset();
    }
    up_ = false;
    writing_ = false;
    queue_.clear();
  }

 private:
  void fail(ErrorKind kind) {
    close();
    events_.on_link_failed(kind);
  }

  uint64_t next_random() {  // splitmix64
    uint64_t z = (rng_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }

  // Takes the frames in link->in[begin, end), then reads more: into `in`, or, for the rest of
  // a data frame's payload once `in` is used up, straight into the message.
  void process(const std::shared_ptr<Link<kTls>>& link) {
    const uint32_t g = generation_;
    LinkState& l = *link;
    for (;;) {
      if (!l.in_frame) {
        l.begin += l.parser.feed(l.in.data() + l.begin, l.end - l.begin);
        if (l.parser.state() == ws::HeaderParser::State::kError) return fail(ErrorKind::kProtocol);
        if (l.parser.state() == ws::HeaderParser::State::kNeedMore) break;
        if (!on_header(l)) return fail(ErrorKind::kProtocol);
      }
      if (whole_message(l.frame)) {
        // A message in one frame is handed over where it lies in `in`, which grows to hold it.
        const size_t length = static_cast<size_t>(l.frame.length);
        if (l.end - l.begin < length) {
          if (l.in.size() - l.begin < length) {
            std::memmove(l.in.data(), l.in.data() + l.begin, l.end - l.begin);
            l.end -= l.begin;
            l.begin = 0;
            // Room for the frame and a little more, as RawSocket's buffer: a read then ends
            // at most that much past a frame, which bounds what moves to the front after it.
            if (l.in.size() < length + kGrowthSlack) l.in.resize(length + kGrowthSlack);
          }
          break;
        }
        const std::span<const uint8_t> message(l.in.data() + l.begin, length);
        l.begin += length;
        l.in_frame = false;
        events_.on_message(message, steady_now_ns());
        if (g != generation_) return;
        continue;
      }
      const bool control = l.frame.opcode >= ws::kClose;
      uint8_t* to = control ? l.control.data() + l.control_size : l.message.data() + l.message_size;
      const size_t take = static_cast<size_t>(std::min<uint64_t>(l.frame_left, l.end - l.begin));
      if (take > 0) std::memcpy(to, l.in.data() + l.begin, take);
      l.begin += take;
      l.frame_left -= take;
      (control ? l.control_size : l.message_size) += take;
      if (l.frame_left > 0) {
        if (control) break;
        const size_t rest = static_cast<size_t>(l.frame_left);
        l.begin = l.end = 0;
        asio::async_read(link->stream(), asio::buffer(to + take, rest),
                         [this, link, g, rest](const error_code& ec, size_t) {
                           if (g != generation_) return;
                           if (ec) return read_failed(ec);
                           count_received(rest);
                           link->message_size += rest;
                           link->frame_left = 0;
                           if (frame_done(*link)) process(link);
                         });
        return;
      }
      if (!frame_done(l)) return;
    }
    // More bytes are needed. What is left moves to the front only when the room after it is
    // short of what the frame under way still needs (at most kGrowthSlack): a one-frame
    // message whose start is already in place is completed where it is.
    size_t wanted = kGrowthSlack;
    if (l.in_frame && whole_message(l.frame)) {
      wanted = std::min(wanted, static_cast<size_t>(l.frame.length) - (l.end - l.begin));
    }
    if (l.begin == l.end) {
      l.begin = l.end = 0;
    } else if (l.begin > 0 && l.in.size() - l.end < wanted) {
      std::memmove(l.in.data(), l.in.data() + l.begin, l.end - l.begin);
      l.end -= l.begin;
      l.begin = 0;
    }
    if (l.in.size() < kReadChunk) l.in.resize(kReadChunk);
    link->stream().async_read_some(asio::buffer(l.in.data() + l.end, l.in.size() - l.end),
                                   pooled([this, link, g](const error_code& ec, size_t n) {
                                     if (g != generation_) return;
                                     if (ec) return read_failed(ec);
                                     count_received(n);
                                     link->end += n;
                                     process(link);
                                   }));
  }

  // Every byte read from the link once it is up, frame headers and control frames included, as
  // RawSocket counts them (docs/MEASUREMENT.md, "Throughput"): counted when read, not when a
  // message completes.
  void count_received(size_t bytes) {
    if (count_bytes_) stats_.count_received(bytes, steady_now_ns());
  }

  void read_failed(const error_code& ec) {
    const bool eof = ec == asio::error::eof || ec == asio::ssl::error::stream_truncated;
    fail(eof ? ErrorKind::kShortRead : ErrorKind::kReset);
  }

  // A text or binary frame with FIN: a message of its own.
  static bool whole_message(const ws::FrameHeader& frame) {
    return frame.fin && (frame.opcode == ws::kText || frame.opcode == ws::kBinary);
  }

  // A parsed header: where its payload goes. False for a frame the router must not send.
  bool on_header(LinkState& l) {
    l.frame = l.parser.header();
    l.parser.reset();
    if (l.frame.masked) return false;  // a server never masks (RFC 6455 section 5.1)
    l.in_frame = true;
    l.frame_left = l.frame.length;
    if (l.frame.opcode >= ws::kClose) {
      l.control_size = 0;
      return true;
    }
    if (l.frame.opcode == ws::kContinuation) {
      if (!l.in_message) return false;
    } else {
      if (l.in_message) return false;
      l.in_message = true;
      l.message_size = 0;
    }
    const uint64_t size = l.message_size + l.frame.length;
    // Without a limit of the plan's, Beast's default: a header never sizes a buffer unbounded.
    const uint64_t limit =
        options_.max_message_bytes > 0 ? options_.max_message_bytes : kDefaultMaxMessage;
    if (size > limit) return false;
    if (whole_message(l.frame)) {
      l.in_message = false;
      return true;
    }
    if (l.message.size() < size) l.message.resize(static_cast<size_t>(size));
    return true;
  }

  // A frame's payload is in; false when the link ended or was closed meanwhile.
  bool frame_done(LinkState& l) {
    l.in_frame = false;
    const uint32_t g = generation_;
    switch (l.frame.opcode) {
      case ws::kPing:
        std::memcpy(l.pong.data(), l.control.data(), l.control_size);
        l.pong_size = l.control_size;
        l.pong_due = true;
        flush();
        return g == generation_;
      case ws::kPong:
        return true;
      case ws::kClose:
        fail(ErrorKind::kShortRead);
        return false;
      default:
        break;
    }
    if (!l.frame.fin) return true;
    l.in_message = false;
    events_.on_message(std::span<const uint8_t>(l.message.data(), l.message_size), steady_now_ns());
    return g == generation_;
  }

  // Frames of the queued messages from the front on (and a pong due, between messages) into
  // link->out, at most kSendChunk payload bytes, the next message joining when the payload
  // stays within kJoinBelow; returns the bytes to write and sets `finished` to how many messages
  // from the front end among them, so that small messages queued together leave in one write.
  size_t fill(LinkState& l, size_t& finished) {
    size_t n = 0;
    finished = 0;
    auto room = [&](size_t bytes) {
      if (l.out.size() < n + bytes) l.out.resize(n + bytes);
    };
    if (l.pong_due && !l.framing) {
      room(ws::kMaxHeaderBytes + l.pong_size);
      ws::FrameHeader h{true, ws::kPong, true, random_key(), l.pong_size};
      n += ws::encode_header(h, l.out.data() + n);
      ws::mask_copy(l.out.data() + n, l.pong.data(), l.pong_size, h.key, 0);
      n += l.pong_size;
      l.pong_due = false;
    }
    size_t payload = 0;
    while (finished < queue_.size()) {
      const OutMessage& m = queue_.at(finished);
      // Behind the first, only a message that fits whole below kJoinBelow joins.
      if (finished > 0 && payload + m.size() > kJoinBelow) break;
      if (!fill_message(l, m, n, payload, room)) break;
      ++finished;
    }
    return n;
  }

  // Frames of `m` (from where the last write left it) into l.out at n, within the write's
  // kSendChunk payload bytes; true when its last byte is among them.
  template <typename Room>
  bool fill_message(LinkState& l, const OutMessage& m, size_t& n, size_t& payload, Room& room) {
    const size_t total = m.size();
    const size_t frame_bytes = options_.fragment_bytes > 0 ? options_.fragment_bytes : total;
    for (;;) {
      if (!l.framing || l.sent == l.frame_end) {
        if (l.framing && l.sent == total) break;
        const size_t length = std::min(frame_bytes, total - l.sent);
        ws::FrameHeader h;
        h.fin = l.sent + length == total;
        h.opcode = l.framing ? ws::kContinuation
                             : (is_text(options_.serializer) ? ws::kText : ws::kBinary);
        h.masked = true;
        h.key = l.key = random_key();
        h.length = length;
        room(ws::kMaxHeaderBytes);
        n += ws::encode_header(h, l.out.data() + n);
        l.frame_start = l.sent;
        l.frame_end = l.sent + length;
        l.framing = true;
      }
      const size_t phase = (l.sent - l.frame_start) % 4;
      const size_t take = std::min(l.frame_end - l.sent, kSendChunk - payload);
      room(take);
      size_t at = l.sent;
      size_t left = take;
      size_t done = 0;
      if (at < m.head.size()) {
        const size_t k = std::min(left, m.head.size() - at);
        ws::mask_copy(l.out.data() + n, m.head.data() + at, k, l.key, phase);
        done = k;
        left -= k;
        at += k;
      }
      if (left > 0) {
        ws::mask_copy(l.out.data() + n + done, m.tail.data() + (at - m.head.size()), left, l.key,
                      phase + done);
      }
      n += take;
      l.sent += take;
      payload += take;
      if (l.sent == total && l.sent == l.frame_end) break;
      if (payload >= kSendChunk) break;
    }
    if (l.sent != total || l.sent != l.frame_end) return false;
    l.framing = false;
    l.sent = 0;
    l.frame_end = 0;
    return true;
  }

  std::array<uint8_t, 4> random_key() {
    const uint64_t r = next_random();
    std::array<uint8_t, 4> key;
    std::memcpy(key.data(), &r, 4);
    return key;
  }

  void flush() {
    if (!up_ || writing_) return;
    auto link = link_;
    if (queue_.empty() && !link->pong_due) return;
    size_t finished = 0;
    const size_t n = fill(*link, finished);
    writing_ = true;
    asio::async_write(
        link->stream(), asio::buffer(link->out.data(), n),
        pooled([this, link, g = generation_, finished](const error_code& ec, size_t written) {
          if (g != generation_) return;
          writing_ = false;
          // Every byte written, frame headers, masks and pongs included.
          if (count_bytes_) stats_.bytes_sent += written;
          if (ec) return fail(ErrorKind::kReset);
          for (size_t i = 0; i < finished; ++i) queue_.pop();
          flush();
          if (g == generation_ && finished > 0 && queue_.empty()) events_.on_drained();
        }));
  }

  asio::io_context& io_;
  ChannelOptions options_;
  ChannelEvents& events_;
  ThreadStats& stats_;
  bool count_bytes_;
  ThreadState* thread_;  // where each TLS handshake is told (null: nowhere)
  std::shared_ptr<Link<kTls>> link_;
  http::SavedSession saved_session_;
  SendQueue queue_;
  uint64_t rng_;
  uint32_t generation_ = 0;
  bool up_ = false;
  bool writing_ = false;
};

}  // namespace

std::unique_ptr<Channel> make_websocket_channel(asio::io_context& io, const ChannelOptions& options,
                                                ChannelEvents& events, ThreadStats& stats,
                                                bool count_bytes, ThreadState* thread) {
  if (options.tls) {
    return std::make_unique<WebSocketChannel<true>>(io, options, events, stats, count_bytes,
                                                    thread);
  }
  return std::make_unique<WebSocketChannel<false>>(io, options, events, stats, count_bytes, thread);
}

}  // namespace benchgate::worker::wamp
