// The buffers of one gathered write of queued messages, each behind its transport's frame
// header: RawSocket's 4-byte header (rawsocket_connection.cc) or the WebSocket connection's
// own frame header (websocket_connection.cc, websocket_frames.h). Both connections write up to
// kMaxMessages queued messages in one write this way. The headers and the buffer list keep
// their capacity from one write to the next: a write allocates nothing once they have grown.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include <boost/asio/buffer.hpp>

#include "router/wamp/connection.h"

namespace benchgate::router::wamp {

template <typename Header>
class GatheredFrames {
 public:
  // Messages per write: a header and a payload each, 128 buffers, within what one send takes
  // (common/net/gathered_write.h, kMaxSendBuffers).
  static constexpr size_t kMaxMessages = 64;

  // The first queued messages, up to kMaxMessages, each behind its header: header_of(message,
  // tag, header) writes the header of `message` (queued with `tag`) into `header`, which stays
  // in place until the next gather, and returns its bytes. The buffers stay valid until then
  // too, and as long as the messages stay queued.
  template <typename HeaderOf>
  std::span<const boost::asio::const_buffer> gather(const OutboundQueue& queue,
                                                    HeaderOf&& header_of) {
    in_flight_ = std::min(queue.size(), kMaxMessages);
    headers_.resize(in_flight_);
    buffers_.clear();
    for (size_t i = 0; i < in_flight_; ++i) {
      const std::vector<uint8_t>& message = *queue.frame(i);
      buffers_.push_back(header_of(message, queue.tag(i), headers_[i]));
      if (!message.empty()) buffers_.emplace_back(message.data(), message.size());
    }
    return buffers_;
  }

  // The write ended: how many queued messages it carried (to pop); none from then on.
  size_t take_written() { return std::exchange(in_flight_, 0); }

 private:
  std::vector<Header> headers_;
  std::vector<boost::asio::const_buffer> buffers_;
  size_t in_flight_ = 0;  // queued messages the write under way carries
};

}  // namespace benchgate::router::wamp
