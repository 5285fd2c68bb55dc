// The buffers of one gathered write of queued messages, each behind its transport's frame
// header: RawSocket's 4-byte header (rawsocket_connection.cc) or the WebSocket connection's
// own frame header (websocket_connection.cc, websocket_frames.h). Both connections write up to
// kMaxMessages queued messages in one write this way; the buffer list and its bound are
// common/net/gathered_messages.h (the worker's RawSocket channel gathers with it too), the
// headers, written at each write, are kept here. The headers and the buffer list keep their
// capacity from one write to the next: a write allocates nothing once they have grown.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include <boost/asio/buffer.hpp>

#include "common/net/gathered_messages.h"
#include "router/wamp/connection.h"

namespace benchgate::router::wamp {

template <typename Header>
class GatheredFrames {
  using Messages = ::benchgate::net::GatheredMessages;

 public:
  // Messages per write: a header and a payload each, 128 buffers, within what one send takes
  // (common/net/gathered_write.h, kMaxSendBuffers; gathered_messages.h checks it).
  static constexpr size_t kMaxMessages = Messages::kMaxMessages;

  // The first queued messages, up to kMaxMessages, each behind its header: header_of(message,
  // tag, header) writes the header of `message` (queued with `tag`) into `header`, which stays
  // in place until the next gather, and returns its bytes. The buffers stay valid until then
  // too, and as long as the messages stay queued.
  template <typename HeaderOf>
  std::span<const boost::asio::const_buffer> gather(const OutboundQueue& queue,
                                                    HeaderOf&& header_of) {
    headers_.resize(Messages::carried(queue.size()));
    return messages_.gather(queue.size(), [&](size_t i) {
      const std::vector<uint8_t>& message = *queue.frame(i);
      return std::array<boost::asio::const_buffer, 2>{
          header_of(message, queue.tag(i), headers_[i]),
          boost::asio::buffer(message.data(), message.size())};
    });
  }

  // The write ended: how many queued messages it carried (to pop); none from then on.
  size_t take_written() { return messages_.take_written(); }

 private:
  std::vector<Header> headers_;
  Messages messages_;  // the buffer list, and how many messages the write under way carries
};

}  // namespace benchgate::router::wamp
