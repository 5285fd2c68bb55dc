// A WAMP transport as a session sees it: open (TCP connect and the transport's handshake),
// send whole messages, receive whole messages. Two implementations: RawSocket
// (rawsocket_channel) and WebSocket (websocket_channel: Beast's HTTP upgrade, its own frames).
// Everything runs on the owning load thread; completions of a closed link are ignored, so close()
// may be called from inside a callback.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "worker/engine/error_kind.h"
#include "worker/engine/thread_state.h"
#include "worker/engine/thread_stats.h"
#include "worker/engine/window_result.h"
#include "worker/http/tls_client.h"
#include "worker/wamp/codec.h"

namespace benchgate::worker::wamp {

// What a channel reports to its session.
class ChannelEvents {
 public:
  virtual ~ChannelEvents() = default;
  // One whole message; `now` is the steady-clock reading of the read that completed it.
  virtual void on_message(std::span<const uint8_t> bytes, int64_t now) = 0;
  // The open link failed: EOF -> kShortRead, socket error -> kReset, bad framing -> kProtocol.
  // The channel is closed already.
  virtual void on_link_failed(ErrorKind kind) = 0;
  // Every queued message was written (a sender may queue more).
  virtual void on_drained() {}
};

struct ChannelOptions {
  boost::asio::ip::tcp::endpoint endpoint;
  std::string host;  // Host header of the WebSocket upgrade ("HOST:PORT")
  Serializer serializer = Serializer::kJson;
  size_t max_message_bytes = 0;  // the largest message accepted from the router
  // TLS (wss, RawSocket over TLS) through the HTTP drivers' client context
  // (worker/http/tls_client.h); null: cleartext. As LoadPlan's sni, verify_host, tls_resumption.
  std::shared_ptr<boost::asio::ssl::context> tls;
  std::string sni;
  std::string verify_host;
  bool tls_resumption = false;
  size_t fragment_bytes = 0;  // websocket: frame size of larger messages sent; 0: one frame
};

class Channel {
 public:
  using OpenDone = std::function<void(const boost::system::error_code&)>;
  virtual ~Channel() = default;

  // Closes any previous link, connects and runs the handshake.
  virtual void open(OpenDone done) = 0;
  // Queues one message made of `head` (copied) and `tail` (referenced; it must stay valid
  // until written: the plan's shared payload).
  virtual void send(std::span<const uint8_t> head, std::span<const uint8_t> tail) = 0;
  // Queues one message whose bytes are taken over (swapped with a buffer of earlier use, so
  // steady-state sending allocates nothing).
  virtual void send_taking(std::vector<uint8_t>& bytes) = 0;
  // Messages queued and not yet completely written.
  virtual size_t queued() const = 0;
  virtual void close() = 0;
};

// A channel's finished TLS handshake on `ssl`, told to `thread` (null: nowhere): the TLS the
// router chose, and the handshake counted, resumed or not. A WAMP session's setup is timed as a
// whole (ConnectionSetup::session_setup), so its connections are not counted or timed apart.
inline void tls_handshake_done(ThreadState* thread, SSL* ssl) {
  if (thread == nullptr) return;
  thread->tls = http::negotiated(ssl);
  ++thread->setup.handshakes;
  if (http::resumed(ssl)) ++thread->setup.resumed;
}

// `stats` receives bytes_sent / bytes_received when `count_bytes` (load sessions and
// subscribers; not the worker's callee, whose traffic mirrors the callers'): every byte written
// or read once the link is up (after TLS, and after the RawSocket handshake or the WebSocket
// upgrade), frame headers and control frames included. With TLS, each
// handshake's outcome goes to `thread` when it is not null: the version, cipher and ALPN the
// router chose (ThreadState::tls), and the handshake counted in ThreadState::setup, resumed or
// not (a workload that reconnects per operation reports them: docs/MEASUREMENT.md
// "Handshakes per second").
std::unique_ptr<Channel> make_rawsocket_channel(boost::asio::io_context& io,
                                                const ChannelOptions& options,
                                                ChannelEvents& events, ThreadStats& stats,
                                                bool count_bytes, ThreadState* thread = nullptr);
std::unique_ptr<Channel> make_websocket_channel(boost::asio::io_context& io,
                                                const ChannelOptions& options,
                                                ChannelEvents& events, ThreadStats& stats,
                                                bool count_bytes, ThreadState* thread = nullptr);

}  // namespace benchgate::worker::wamp
