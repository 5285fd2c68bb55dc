// A thread's spare buffer (for reading, or for answers), lent to the connection that needs it.
//
// The router's HTTP sessions and WAMP connections, and the worker's HTTP connections, each
// run many connections on one thread, and connections of one thread never run at once. So a
// connection with nothing buffered need not hold a read buffer: it waits for readability,
// takes the thread's spare (a swap: ownership moves, nothing is shared), reads and handles
// what arrived, and gives the buffer back once nothing is left in it. 10,000 idle connections
// then hold no read buffers, and a busy one allocates nothing per request or message.
//
// One spare per thread and per use (Tag), so that buffers with different policies (the WAMP
// thread's RawSocket input and WebSocket messages, the HTTP serving threads' input) never
// meet. Buffer is anything with capacity(), a cheap swap and a default state that holds no
// memory: boost::beast::flat_buffer, ByteBlock.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <utility>

namespace benchgate {

// A block of bytes on the heap with its size; swapped and moved whole, never copied. The
// contents of a new or grown block are not initialised.
class ByteBlock {
 public:
  uint8_t* data() const { return data_.get(); }
  size_t capacity() const { return capacity_; }
  // At least `bytes` of room; what the block held is not kept when it grows.
  void reserve_discarding(size_t bytes) {
    if (capacity_ >= bytes) return;
    data_ = std::make_unique_for_overwrite<uint8_t[]>(bytes);
    capacity_ = bytes;
  }
  friend void swap(ByteBlock& a, ByteBlock& b) noexcept {
    std::swap(a.data_, b.data_);
    std::swap(a.capacity_, b.capacity_);
  }

 private:
  std::unique_ptr<uint8_t[]> data_;
  size_t capacity_ = 0;
};

template <typename Tag, typename Buffer>
class ThreadSpare {
 public:
  // The calling thread's spare (empty until a connection gives one back).
  static Buffer& get() {
    thread_local Buffer spare;
    return spare;
  }
  // Swaps `own` with the spare: `own` (holding nothing) takes the thread's buffer, or, called
  // again before anything was read into it, gives it back untouched.
  static void lend(Buffer& own) {
    using std::swap;
    swap(own, get());
  }
  // `own` has nothing left in it: the thread keeps the larger of the two buffers, unless it is
  // larger than `max_kept` bytes, and `own` ends up holding no memory (the other is freed).
  static void give_back(Buffer& own, size_t max_kept = std::numeric_limits<size_t>::max()) {
    Buffer& spare = get();
    if (own.capacity() <= max_kept && spare.capacity() < own.capacity()) {
      using std::swap;
      swap(own, spare);
    }
    // A swap with an empty one, not an assignment: a std::string assigned an empty string
    // keeps its capacity.
    Buffer freed;
    using std::swap;
    swap(own, freed);
  }
};

}  // namespace benchgate
