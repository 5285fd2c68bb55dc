// WAMP over RawSocket: the 4-byte handshake, then 4-byte frame headers. Reads go into one
// reused buffer that grows to the largest message seen; writes gather the queued messages'
// headers and bytes into one system call. The reads and writes of a link take their operations'
// memory from the thread's pool (common/util/pooled_handler.h): nothing is allocated per message.
// With TLS (ChannelOptions::tls) the RawSocket handshake follows the TLS handshake and every byte
// goes through the TLS stream (common/tls/tls_stream.h: a read decrypts every record the socket
// brought, a write gathers a batch's frames into records); each link's socket and stream are held
// by shared_ptr, so completions still pending on a closed link keep it alive until they run and
// are ignored.
#include <algorithm>
#include <boost/asio/read.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/asio/write.hpp>
#include <cstring>

#include "common/net/gathered_messages.h"
#include "common/net/gathered_write.h"
#include "common/time/clock.h"
#include "common/tls/client_errors.h"
#include "common/util/pooled_handler.h"
#include "worker/http/tls_client.h"
#include "worker/wamp/channel.h"
#include "worker/wamp/errors.h"
#include "worker/wamp/rawsocket_framing.h"
#include "worker/wamp/send_queue.h"

namespace benchgate::worker::wamp {
namespace {

namespace asio = boost::asio;
using boost::system::error_code;

constexpr size_t kInitialReadBytes = 64 * 1024;

// One connection: the socket and, with TLS, the stream over it (OpenSSL on the socket's own
// descriptor, common/tls/tls_stream.h, as the HTTP connections' TLS).
struct Link {
  explicit Link(asio::io_context& io) : socket(io) {}
  asio::ip::tcp::socket socket;
  std::unique_ptr<http::TlsSocket> tls;

  // A batch of calls in one send: over TCP up to 256 buffers per sendmsg
  // (common/net/gathered_write.h), over TLS the frames' small buffers gathered into records
  // of up to 16 KiB (TlsStream::async_write_all). asio::async_write would send 16 buffers at
  // a time.
  template <class Handler>
  void write(std::span<const asio::const_buffer> buffers, Handler&& handler) {
    if (tls) return tls->async_write_all(buffers, std::forward<Handler>(handler));
    net::async_write_gathered(socket, buffers, std::forward<Handler>(handler));
  }
  template <class Handler>
  void write(asio::const_buffer buffer, Handler&& handler) {
    if (tls) return asio::async_write(*tls, buffer, std::forward<Handler>(handler));
    asio::async_write(socket, buffer, std::forward<Handler>(handler));
  }
  template <class Buffers, class Handler>
  void read_exactly(const Buffers& buffers, Handler&& handler) {
    if (tls) return asio::async_read(*tls, buffers, std::forward<Handler>(handler));
    asio::async_read(socket, buffers, std::forward<Handler>(handler));
  }
  template <class Buffers, class Handler>
  void read_some(const Buffers& buffers, Handler&& handler) {
    if (tls) return tls->async_read_some(buffers, std::forward<Handler>(handler));
    socket.async_read_some(buffers, std::forward<Handler>(handler));
  }
};

class RawSocketChannel : public Channel {
 public:
  RawSocketChannel(asio::io_context& io, const ChannelOptions& options, ChannelEvents& events,
                   ThreadStats& stats, bool count_bytes, ThreadState* thread)
      : io_(io),
        options_(options),
        events_(events),
        stats_(stats),
        count_bytes_(count_bytes),
        thread_(thread),
        read_buffer_(kInitialReadBytes) {}

  void open(OpenDone done) override {
    close();
    link_ = std::make_shared<Link>(io_);
    auto link = link_;
    link->socket.async_connect(
        options_.endpoint,
        [this, link, g = generation_, done = std::move(done)](const error_code& ec) mutable {
          if (g != generation_) return;
          if (ec) {
            close();
            return done(ec);
          }
          error_code ignored;
          link->socket.set_option(asio::ip::tcp::no_delay(true), ignored);
          if (!options_.tls) return send_handshake(std::move(done));
          link->tls = std::make_unique<http::TlsSocket>(link->socket, *options_.tls);
          http::prepare_connection(link->tls->native_handle(), options_.sni, options_.verify_host);
          if (options_.tls_resumption) saved_session_.offer(link->tls->native_handle());
          link->tls->async_handshake(
              asio::ssl::stream_base::client,
              [this, link, g, done = std::move(done)](const error_code& hec) mutable {
                if (g != generation_) return;
                if (hec) {
                  const error_code why =
                      tls::client_handshake_error(link->tls->native_handle(), hec);
                  close();
                  return done(why);
                }
                tls_handshake_done(thread_, link->tls->native_handle());
                send_handshake(std::move(done));
              });
        });
  }

  void send(std::span<const uint8_t> head, std::span<const uint8_t> tail) override {
    OutMessage& m = queue_.push();
    m.head.assign(head.begin(), head.end());
    m.tail = tail;
    m.frame = frame_header(FrameType::kMessage, static_cast<uint32_t>(m.size()));
    flush();
  }

  void send_taking(std::vector<uint8_t>& bytes) override {
    OutMessage& m = queue_.push();
    std::swap(m.head, bytes);
    m.frame = frame_header(FrameType::kMessage, static_cast<uint32_t>(m.size()));
    flush();
  }

  size_t queued() const override { return queue_.size(); }

  void close() override {
    ++generation_;
    if (link_) {
      error_code ignored;
      if (link_->tls) http::closing(link_->tls->native_handle());
      link_->socket.close(ignored);
      link_.reset();
    }
    up_ = false;
    writing_ = false;
    queue_.clear();
    read_length_ = 0;
  }

 private:
  void send_handshake(OpenDone done) {
    handshake_ = client_handshake(options_.serializer);
    auto link = link_;
    link->write(asio::buffer(handshake_), [this, link, g = generation_, done = std::move(done)](
                                              const error_code& wec, size_t) mutable {
      if (g != generation_) return;
      if (wec) {
        close();
        return done(wec);
      }
      read_reply(std::move(done));
    });
  }

  void read_reply(OpenDone done) {
    auto link = link_;
    link->read_exactly(asio::buffer(reply_), [this, link, g = generation_, done = std::move(done)](
                                                 const error_code& ec, size_t) {
      if (g != generation_) return;
      if (ec) {
        close();
        return done(ec);
      }
      const HandshakeReply reply = parse_handshake_reply(reply_, options_.serializer);
      if (!reply.ok) {
        close();
        return done(make_error_code(JoinError::kRawSocketRefused));
      }
      up_ = true;
      start_read();
      done({});
    });
  }

  void start_read() {
    if (read_buffer_.size() - read_length_ < 4096) read_buffer_.resize(read_buffer_.size() * 2);
    auto link = link_;
    link->read_some(
        asio::buffer(read_buffer_.data() + read_length_, read_buffer_.size() - read_length_),
        pooled([this, link, g = generation_](const error_code& ec, size_t bytes) {
          if (g != generation_) return;
          on_read(ec, bytes);
        }));
  }

  void fail(ErrorKind kind) {
    close();
    events_.on_link_failed(kind);
  }

  void on_read(const error_code& ec, size_t bytes) {
    if (ec) {
      const bool eof = ec == asio::error::eof || ec == asio::ssl::error::stream_truncated;
      return fail(eof ? ErrorKind::kShortRead : ErrorKind::kReset);
    }
    const int64_t now = steady_now_ns();
    if (count_bytes_) stats_.count_received(bytes, now);
    read_length_ += bytes;
    const uint32_t g = generation_;
    size_t offset = 0;
    while (read_length_ - offset >= kRawSocketHeaderBytes) {
      const FrameHeader header = parse_frame_header(read_buffer_.data() + offset);
      if (!header.valid || header.length > options_.max_message_bytes) {
        return fail(ErrorKind::kProtocol);
      }
      const size_t frame = kRawSocketHeaderBytes + header.length;
      if (read_length_ - offset < frame) {
        // Room for the whole frame, so the next reads complete it.
        if (read_buffer_.size() < frame) {
          std::memmove(read_buffer_.data(), read_buffer_.data() + offset, read_length_ - offset);
          read_length_ -= offset;
          offset = 0;
          read_buffer_.resize(frame + 4096);
        }
        break;
      }
      const std::span<const uint8_t> payload(read_buffer_.data() + offset + kRawSocketHeaderBytes,
                                             header.length);
      offset += frame;
      if (header.type == FrameType::kMessage) {
        events_.on_message(payload, now);
        if (g != generation_) return;  // the session closed the channel
      } else if (header.type == FrameType::kPing) {
        OutMessage& m = queue_.push();
        m.head.assign(payload.begin(), payload.end());
        m.frame = frame_header(FrameType::kPong, header.length);
        flush();
        if (g != generation_) return;
      }
    }
    if (offset > 0) {
      std::memmove(read_buffer_.data(), read_buffer_.data() + offset, read_length_ - offset);
      read_length_ -= offset;
    }
    start_read();
  }

  void flush() {
    if (!up_ || writing_ || queue_.empty()) return;
    const auto buffers = gather_.gather(queue_.size(), [this](size_t i) {
      const OutMessage& m = queue_.at(i);
      return std::array<asio::const_buffer, 3>{asio::buffer(m.frame), asio::buffer(m.head),
                                               asio::buffer(m.tail.data(), m.tail.size())};
    });
    writing_ = true;
    auto link = link_;
    // A view of the gathered list, not the list itself: the write operation keeps a copy of
    // the buffer sequence it is given, which would be a vector allocated per write.
    link->write(buffers,
                pooled([this, link, g = generation_](const error_code& ec, size_t written) {
                  if (g != generation_) return;
                  writing_ = false;
                  if (count_bytes_) stats_.bytes_sent += written;
                  if (ec) return fail(ErrorKind::kReset);
                  for (size_t n = gather_.take_written(); n > 0; --n) queue_.pop();
                  flush();
                  if (g == generation_ && queue_.empty()) events_.on_drained();
                }));
  }

  asio::io_context& io_;
  ChannelOptions options_;
  ChannelEvents& events_;
  ThreadStats& stats_;
  bool count_bytes_;
  ThreadState* thread_;  // where each TLS handshake is told (null: nowhere)
  std::shared_ptr<Link> link_;
  http::SavedSession saved_session_;
  std::array<uint8_t, 4> handshake_{};
  std::array<uint8_t, 4> reply_{};
  std::vector<uint8_t> read_buffer_;
  size_t read_length_ = 0;
  SendQueue queue_;
  net::GatheredMessages gather_;  // the write under way: its buffers, the messages it carries
  uint32_t generation_ = 0;
  bool up_ = false;
  bool writing_ = false;
};

}  // namespace

std::unique_ptr<Channel> make_rawsocket_channel(asio::io_context& io, const ChannelOptions& options,
                                                ChannelEvents& events, ThreadStats& stats,
                                                bool count_bytes, ThreadState* thread) {
  return std::make_unique<RawSocketChannel>(io, options, events, stats, count_bytes, thread);
}

}  // namespace benchgate::worker::wamp
