// The outbound messages of one channel, oldest first, in a ring whose entries keep their
// buffers: once the ring has grown to the session's depth, queueing allocates nothing.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace benchgate::worker::wamp {

struct OutMessage {
  std::array<uint8_t, 4> frame{};  // RawSocket frame header
  std::vector<uint8_t> head;       // owned bytes
  std::span<const uint8_t> tail;   // shared bytes (the plan's payload), may be empty
  size_t size() const { return head.size() + tail.size(); }
};

class SendQueue {
 public:
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  OutMessage& at(size_t i) { return ring_[(first_ + i) % ring_.size()]; }
  OutMessage& front() { return at(0); }

  // A slot at the back; its head is cleared but keeps its capacity.
  OutMessage& push() {
    if (size_ == ring_.size()) grow();
    OutMessage& m = ring_[(first_ + size_) % ring_.size()];
    ++size_;
    m.head.clear();
    m.tail = {};
    return m;
  }
  void pop() {
    first_ = (first_ + 1) % ring_.size();
    --size_;
  }
  void clear() {
    first_ = 0;
    size_ = 0;
  }

 private:
  void grow() {
    std::vector<OutMessage> bigger(ring_.empty() ? 8 : ring_.size() * 2);
    for (size_t i = 0; i < size_; ++i) bigger[i] = std::move(at(i));
    for (size_t i = size_; i < ring_.size(); ++i) {  // keep the spare buffers too
      bigger[i] = std::move(ring_[(first_ + i) % ring_.size()]);
    }
    ring_ = std::move(bigger);
    first_ = 0;
  }

  std::vector<OutMessage> ring_;
  size_t first_ = 0;
  size_t size_ = 0;
};

}  // namespace benchgate::worker::wamp
