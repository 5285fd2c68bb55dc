// The requests written on one connection and not yet answered, oldest first. HTTP/1.1
// answers in order, so the oldest entry always belongs to the next response. Sized once for
// the connection's pipelining depth; push and pop never allocate.
#pragma once

#include <cassert>
#include <cstdint>
#include <memory>

namespace benchgate::worker::http {

struct InFlightRequest {
  int64_t intended_ns;  // steady clock: when it was due (open loop) or written (closed loop)
  int64_t sent_ns;      // steady clock: when its write was issued
};

class InFlightRing {
 public:
  explicit InFlightRing(uint32_t capacity)
      : slots_(std::make_unique<InFlightRequest[]>(capacity)), capacity_(capacity) {}

  uint32_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  uint32_t capacity() const { return capacity_; }

  // Wrapping by comparison, not %, keeps a division off the per-request path.
  void push(const InFlightRequest& request) {
    assert(size_ < capacity());
    uint32_t tail = head_ + size_;
    if (tail >= capacity()) tail -= capacity();
    slots_[tail] = request;
    ++size_;
  }
  InFlightRequest pop() {
    assert(size_ > 0);
    const InFlightRequest front = slots_[head_];
    if (++head_ == capacity()) head_ = 0;
    --size_;
    return front;
  }
  void clear() {
    head_ = 0;
    size_ = 0;
  }

 private:
  std::unique_ptr<InFlightRequest[]> slots_;  // not a vector: 8 bytes fewer per connection
  uint32_t capacity_;
  uint32_t head_ = 0;
  uint32_t size_ = 0;
};

}  // namespace benchgate::worker::http
