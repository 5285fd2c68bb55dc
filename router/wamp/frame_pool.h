// Buffers for the messages the WAMP thread routes per operation (RESULT, INVOCATION, EVENT,
// PUBLISHED: router/wamp/routing_frames.h), kept with their capacity once the connections'
// queues are done with them, so that a routed message is written into a buffer an earlier one
// left, not a new one. A frame is free again when the pool holds its only reference (no queue
// holds it any more). Touched only from the WAMP thread.
//
// Bounded: at most kMaxFrames buffers (the list of them reserved at once, 4 KiB), a buffer grown
// past kKeptBytes is freed when it comes free (a large message allocates as before). A pool
// made with other bounds serves bench.transfer's chunks (router/wamp/dealer.h): a few buffers,
// each kept whatever its size while transfers are under way, and all freed by release(). A take()
// looks from the buffer after the last one handed out (they come free in about the order they were
// taken, so the first one looked at is free in steady state) and with none free hands out a new
// one: the pool grows only at a new peak of messages in flight (kept while there is room, otherwise
// not pooled).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

namespace benchgate::router::wamp {

class FramePool {
 public:
  static constexpr size_t kMaxFrames = 256;
  static constexpr size_t kKeptBytes = 16 * 1024;
  // A new buffer's first capacity: the routed messages of a small payload fit without growing
  // it (a buffer that held a PUBLISHED would otherwise grow when an EVENT comes its turn).
  static constexpr size_t kFirstBytes = 1024;

  FramePool() : FramePool(kMaxFrames, kKeptBytes) {}
  FramePool(size_t max_frames, size_t kept_bytes)
      : max_frames_(max_frames), kept_bytes_(kept_bytes) {
    frames_.reserve(max_frames_);
  }

  // An empty buffer for one message; hand it to the queues as a Frame.
  std::shared_ptr<std::vector<uint8_t>> take() {
    const size_t count = frames_.size();
    for (size_t tried = 0; tried < count; ++tried) {
      std::shared_ptr<std::vector<uint8_t>>& frame = frames_[next_];
      next_ = next_ + 1 == count ? 0 : next_ + 1;
      if (frame.use_count() != 1) continue;
      if (frame->capacity() > kept_bytes_) {
        std::vector<uint8_t>().swap(*frame);
      } else {
        frame->clear();
      }
      return frame;
    }
    auto frame = std::make_shared<std::vector<uint8_t>>();
    frame->reserve(kFirstBytes);
    if (count < max_frames_) frames_.push_back(frame);
    return frame;
  }

  size_t size() const { return frames_.size(); }
  // Lets go of every buffer (those still queued live until their queues are done with them).
  void release() {
    frames_.clear();
    next_ = 0;
  }

 private:
  size_t max_frames_;
  size_t kept_bytes_;
  std::vector<std::shared_ptr<std::vector<uint8_t>>> frames_;
  size_t next_ = 0;
};

}  // namespace benchgate::router::wamp
