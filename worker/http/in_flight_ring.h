// The requests written on one connection and not yet answered, oldest first. HTTP/1.1
// answers in order, so the oldest entry always belongs to the next response. Sized once for
// the connection's pipelining depth; push and pop never allocate. A ring of one (in_flight 1,
// the default) keeps its slot inside itself rather than in a block of its own: 32 bytes fewer
// per connection.
#pragma once

#include <cassert>
#include <cstdint>

namespace benchgate::worker::http {

struct InFlightRequest {
  int64_t intended_ns;  // steady clock: when it was due (open loop) or written (closed loop)
  int64_t sent_ns;      // steady clock: when its write was issued
};

class InFlightRing {
 public:
  explicit InFlightRing(uint32_t capacity) : capacity_(capacity) {
    if (capacity_ > 1) many_ = new InFlightRequest[capacity_];
  }
  ~InFlightRing() {
    if (capacity_ > 1) delete[] many_;
  }
  InFlightRing(const InFlightRing&) = delete;
  InFlightRing& operator=(const InFlightRing&) = delete;

  uint32_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  uint32_t capacity() const { return capacity_; }

  // Wrapping by comparison, not %, keeps a division off the per-request path.
  void push(const InFlightRequest& request) {
    assert(size_ < capacity());
    uint32_t tail = head_ + size_;
    if (tail >= capacity()) tail -= capacity();
    slots()[tail] = request;
    ++size_;
  }
  InFlightRequest pop() {
    assert(size_ > 0);
    const InFlightRequest front = slots()[head_];
    if (++head_ == capacity()) head_ = 0;
    --size_;
    return front;
  }
  void clear() {
    head_ = 0;
    size_ = 0;
  }

 private:
  InFlightRequest* slots() { return capacity_ > 1 ? many_ : &one_; }

  union {
    InFlightRequest one_{};  // capacity 1
    InFlightRequest* many_;  // capacity > 1
  };
  uint32_t capacity_;
  uint32_t head_ = 0;
  uint32_t size_ = 0;
};

}  // namespace benchgate::worker::http
