// WAMP over WebSocket (Beast, client role): the upgrade asks for the serializer's
// subprotocol and must get it back; JSON travels in text messages, the binary serializers in
// binary ones. A Beast stream cannot be reused once closed, so each link is a fresh stream held
// by shared_ptr: completions still pending on a closed link keep it alive until they run and
// are ignored (docs/CONTRIBUTING.md, rule 7). With TLS (wss, ChannelOptions::tls) the stream
// runs over an Asio ssl stream made from the HTTP drivers' client context, and the upgrade
// follows the TLS handshake.
#include <boost/asio/connect.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/field.hpp>
#include <boost/beast/websocket.hpp>
#include <boost/beast/websocket/ssl.hpp>

#include "common/time/clock.h"
#include "worker/http/tls_client.h"
#include "worker/wamp/channel.h"
#include "worker/wamp/errors.h"
#include "worker/wamp/send_queue.h"

namespace benchgate::worker::wamp {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace websocket = boost::beast::websocket;
using boost::system::error_code;

template <bool kTls>
struct Link;

template <>
struct Link<false> {
  Link(asio::io_context& io, asio::ssl::context*) : ws(io) {}
  asio::ip::tcp::socket& socket() { return ws.next_layer(); }
  websocket::stream<asio::ip::tcp::socket> ws;
  beast::flat_buffer buffer;
  websocket::response_type response;
};

template <>
struct Link<true> {
  Link(asio::io_context& io, asio::ssl::context* tls) : ws(io, *tls) {}
  asio::ip::tcp::socket& socket() { return ws.next_layer().next_layer(); }
  websocket::stream<asio::ssl::stream<asio::ip::tcp::socket>> ws;
  beast::flat_buffer buffer;
  websocket::response_type response;
};

template <bool kTls>
class WebSocketChannel : public Channel {
 public:
  WebSocketChannel(asio::io_context& io, const ChannelOptions& options, ChannelEvents& events,
                   ThreadStats& stats, bool count_bytes, std::optional<NegotiatedTls>* negotiated)
      : io_(io),
        options_(options),
        events_(events),
        stats_(stats),
        count_bytes_(count_bytes),
        negotiated_(negotiated) {}

  void open(OpenDone done) override {
    close();
    link_ = std::make_shared<Link<kTls>>(io_, options_.tls.get());
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
            SSL* ssl = link->ws.next_layer().native_handle();
            http::prepare_connection(ssl, options_.sni, options_.verify_host);
            if (options_.tls_resumption) saved_session_.offer(ssl);
            link->ws.next_layer().async_handshake(
                asio::ssl::stream_base::client,
                [this, link, g, done = std::move(done)](const error_code& hec) mutable {
                  if (g != generation_) return;
                  if (hec) {
                    close();
                    return done(hec);
                  }
                  if (negotiated_)
                    *negotiated_ = http::negotiated(link->ws.next_layer().native_handle());
                  upgrade(link, std::move(done));
                });
          } else {
            upgrade(link, std::move(done));
          }
        });
  }

  // The WebSocket upgrade on a connected (and, with TLS, handshaken) link.
  void upgrade(const std::shared_ptr<Link<kTls>>& link, OpenDone done) {
    const uint32_t g = generation_;
    const std::string proto(subprotocol(options_.serializer));
    link->ws.set_option(
        websocket::stream_base::decorator([proto](websocket::request_type& request) {
          request.set(beast::http::field::sec_websocket_protocol, proto);
          request.set(beast::http::field::user_agent, "benchgate-worker");
        }));
    link->ws.read_message_max(options_.max_message_bytes);
    if (options_.fragment_bytes > 0) {
      // Beast writes a larger message as frames of its write buffer's size.
      link->ws.auto_fragment(true);
      link->ws.write_buffer_bytes(options_.fragment_bytes);
    } else {
      link->ws.auto_fragment(false);
      link->ws.write_buffer_bytes(1 << 20);  // masking buffer: fewer writes for big messages
    }
    if (is_text(options_.serializer)) {
      link->ws.text(true);
    } else {
      link->ws.binary(true);
    }
    link->ws.async_handshake(link->response, options_.host, "/",
                             [this, link, g, done = std::move(done)](const error_code& hec) {
                               if (g != generation_) return;
                               if (hec) {
                                 close();
                                 return done(hec);
                               }
                               if (link->response[beast::http::field::sec_websocket_protocol] !=
                                   subprotocol(options_.serializer)) {
                                 close();
                                 return done(make_error_code(JoinError::kNoSubprotocol));
                               }
                               up_ = true;
                               start_read();
                               done({});
                             });
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
      if constexpr (kTls) http::closing(link_->ws.next_layer().native_handle());
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

  void start_read() {
    auto link = link_;
    link->ws.async_read(
        link->buffer, [this, link, g = generation_](const error_code& ec, size_t bytes) {
          if (g != generation_) return;
          if (ec) {
            const bool eof = ec == asio::error::eof || ec == websocket::error::closed ||
                             ec == asio::ssl::error::stream_truncated;
            const bool framing =
                ec.category() == websocket::make_error_code(websocket::error::closed).category();
            return fail(eof ? ErrorKind::kShortRead
                            : (framing ? ErrorKind::kProtocol : ErrorKind::kReset));
          }
          const int64_t now = steady_now_ns();
          if (count_bytes_) stats_.count_received(bytes, now);
          const auto data = link->buffer.data();
          events_.on_message(
              std::span<const uint8_t>(static_cast<const uint8_t*>(data.data()), data.size()), now);
          if (g != generation_) return;
          link->buffer.consume(link->buffer.size());
          start_read();
        });
  }

  void flush() {
    if (!up_ || writing_ || queue_.empty()) return;
    OutMessage& m = queue_.front();
    buffers_[0] = asio::buffer(m.head);
    buffers_[1] = asio::buffer(m.tail.data(), m.tail.size());
    writing_ = true;
    auto link = link_;
    link->ws.async_write(buffers_,
                         [this, link, g = generation_](const error_code& ec, size_t written) {
                           if (g != generation_) return;
                           writing_ = false;
                           if (count_bytes_) stats_.bytes_sent += written;
                           if (ec) return fail(ErrorKind::kReset);
                           queue_.pop();
                           flush();
                           if (g == generation_ && queue_.empty()) events_.on_drained();
                         });
  }

  asio::io_context& io_;
  ChannelOptions options_;
  ChannelEvents& events_;
  ThreadStats& stats_;
  bool count_bytes_;
  std::optional<NegotiatedTls>* negotiated_;
  std::shared_ptr<Link<kTls>> link_;
  http::SavedSession saved_session_;
  SendQueue queue_;
  std::array<asio::const_buffer, 2> buffers_;
  uint32_t generation_ = 0;
  bool up_ = false;
  bool writing_ = false;
};

}  // namespace

std::unique_ptr<Channel> make_websocket_channel(asio::io_context& io, const ChannelOptions& options,
                                                ChannelEvents& events, ThreadStats& stats,
                                                bool count_bytes,
                                                std::optional<NegotiatedTls>* negotiated) {
  if (options.tls) {
    return std::make_unique<WebSocketChannel<true>>(io, options, events, stats, count_bytes,
                                                    negotiated);
  }
  return std::make_unique<WebSocketChannel<false>>(io, options, events, stats, count_bytes,
                                                   negotiated);
}

}  // namespace benchgate::worker::wamp
