// The outbound messages of one channel, oldest first, in a ring whose entries keep their
// buffers: once the ring has grown to the session's depth, queueing allocates nothing. An entry
// stays where it is while the ring grows (the ring holds pointers to them): a gathered write
// under way points into the entries it carries, their frame headers included, and a message
// queued meanwhile may grow the ring.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
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
  OutMessage& at(size_t i) { return *ring_[(first_ + i) % ring_.size()]; }
  OutMessage& front() { return at(0); }

  // A slot at the back; its head is cleared but keeps its capacity.
  OutMessage& push() {
    if (size_ == ring_.size()) grow();
    OutMessage& m = *ring_[(first_ + size_) % ring_.size()];
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
  // Moves the pointers, never the entries: those of a write under way stay valid.
  void grow() {
    std::vector<std::unique_ptr<OutMessage>> bigger(ring_.empty() ? 8 : ring_.size() * 2);
    const size_t old_size = ring_.size();
    for (size_t i = 0; i < old_size; ++i) {  // queued first, then the spare entries
      bigger[i] = std::move(ring_[(first_ + i) % old_size]);
    }
    for (size_t i = old_size; i < bigger.size(); ++i) bigger[i] = std::make_unique<OutMessage>();
    ring_ = std::move(bigger);
    first_ = 0;
  }

  std::vector<std::unique_ptr<OutMessage>> ring_;
  size_t first_ = 0;
  size_t size_ = 0;
};

}  // namespace benchgate::worker::wamp
