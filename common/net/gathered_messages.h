// The buffer list of one gathered write of queued messages (gathered_write.h sends it in one
// sendmsg): the first kMaxMessages messages of a queue, oldest first, each as its few buffers (a
// frame header, then its bytes), an empty buffer left out. The router's WAMP connections gather
// their writes this way (both transports, router/wamp/gathered_frames.h, which adds the frame
// headers it writes at each write) and so does the worker's RawSocket channel
// (worker/wamp/rawsocket_channel.cc, whose messages carry their headers). The list keeps its
// capacity from one write to the next: once it has grown, a gather allocates nothing.
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>
#include <span>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <boost/asio/buffer.hpp>

#include "common/net/gathered_write.h"

namespace benchgate::net {

class GatheredMessages {
 public:
  // Messages per write.
  static constexpr size_t kMaxMessages = 64;

  // How many of `queued` messages a write carries.
  static constexpr size_t carried(size_t queued) { return std::min(queued, kMaxMessages); }

  // The buffers of the first carried(queued) messages: buffers_of(i) returns those of message i
  // (0 the oldest) as a std::array of const_buffer, in the order they are sent. They stay valid
  // until the write ends, and so does the list (until the next gather).
  template <typename BuffersOf>
  std::span<const boost::asio::const_buffer> gather(size_t queued, BuffersOf&& buffers_of) {
    using Buffers = std::remove_cvref_t<std::invoke_result_t<BuffersOf&, size_t>>;
    static_assert(kMaxMessages * std::tuple_size_v<Buffers> <= kMaxSendBuffers,
                  "a whole write's buffers go in one sendmsg");
    in_flight_ = carried(queued);
    buffers_.clear();
    for (size_t i = 0; i < in_flight_; ++i) {
      for (const boost::asio::const_buffer& buffer : buffers_of(i)) {
        if (buffer.size() > 0) buffers_.push_back(buffer);
      }
    }
    return buffers_;
  }

  // The write ended: how many queued messages it carried (to pop); none from then on.
  size_t take_written() { return std::exchange(in_flight_, 0); }

 private:
  std::vector<boost::asio::const_buffer> buffers_;
  size_t in_flight_ = 0;  // queued messages the write under way carries
};

}  // namespace benchgate::net
