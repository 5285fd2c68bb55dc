// The process-wide budget for buffered message bytes (--max-buffered-bytes): HTTP request
// bodies, WebSocket messages and RawSocket frames being assembled, and large WAMP messages
// queued for sending (router/wamp/frame_ledger.h), share one limit, so that many connections
// each holding part of a large message cannot take the machine's memory.
//
// What counts: a connection's message buffer larger than kUnbudgetedBytes counts in full
// (its capacity, reserved before the buffer grows to it); smaller buffers are outside the
// budget, so idle connections and small messages never touch the shared counter. A buffer
// that grew past kUnbudgetedBytes is freed once its message is handled, which gives its bytes
// back. A message buffer (a WAMP message, an HTTP/1.1 body of known length) grows by what
// has arrived, not by what its header announces (trusted_capacity). The counter is an atomic
// shared by the HTTP serving threads and the WAMP thread.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>

namespace benchgate::router::memory {

// Who asked: the label of the refusal counter.
enum class BudgetUser : uint8_t { http = 0, websocket = 1, rawsocket = 2 };
inline constexpr int kBudgetUsers = 3;
std::string_view budget_user_label(BudgetUser user);  // "http", "websocket", "rawsocket"

// A connection's buffer up to this size is outside the budget.
inline constexpr uint64_t kUnbudgetedBytes = 64 * 1024;
// The WAMP thread keeps one freed message buffer of at most this size for the next large
// message (reused, so that messages of some hundred KiB do not allocate and copy their way up
// each time). Parked it is outside the budget; a connection that takes it reserves it.
inline constexpr uint64_t kSpareBufferBytes = 1 << 20;

// The length a peer announces for a message (a RawSocket frame header, a WebSocket frame
// header, an HTTP/1.1 Content-Length) is trusted only as far as its bytes arrive: a message
// buffer grows at once to at most kMaxGrowth times what it holds plus kGrowthReadBytes (a
// read), so that a peer must send bytes to make the router hold memory for them (a header
// announcing 16 MiB with nothing after it holds none of the budget), while a large message
// still grows in few steps (a 16 MiB RawSocket frame: 64 KiB, 1 MiB, then its length).
inline constexpr uint64_t kMaxGrowth = 16;
inline constexpr uint64_t kGrowthReadBytes = 4096;

// The capacity a message buffer holding `held` bytes of a message may grow to now, for a
// message that `announced` bytes in all would complete: `announced` when that is at most
// kMaxGrowth * (held + kGrowthReadBytes), else kMaxGrowth * max(held, kGrowthReadBytes).
uint64_t trusted_capacity(uint64_t held, uint64_t announced);

class BufferBudget {
 public:
  explicit BufferBudget(uint64_t limit) : limit_(limit) {}
  BufferBudget(const BufferBudget&) = delete;
  BufferBudget& operator=(const BufferBudget&) = delete;

  // Adds `bytes` to what is in use unless that would pass the limit; then nothing is added,
  // the refusal is counted for `user` and the answer is false.
  bool try_reserve(uint64_t bytes, BudgetUser user);
  // Gives back bytes reserved earlier.
  void release(uint64_t bytes);

  uint64_t limit() const { return limit_; }
  uint64_t in_use() const { return in_use_.load(std::memory_order_relaxed); }
  uint64_t refusals(BudgetUser user) const {
    return refusals_[static_cast<size_t>(user)].load(std::memory_order_relaxed);
  }
  // Zeroes the refusal counters (RouterControl.Reset); what is in use stays.
  void reset_refusals();

 private:
  const uint64_t limit_;
  std::atomic<uint64_t> in_use_{0};
  std::array<std::atomic<uint64_t>, kBudgetUsers> refusals_{};
};

// What one buffer of one connection holds of the budget. resize() follows the buffer's
// capacity: call it before the buffer grows, and after it shrinks; the destructor gives back
// whatever is held. Without a budget (nullptr) every resize succeeds.
class Reservation {
 public:
  Reservation(BufferBudget* budget, BudgetUser user) : budget_(budget), user_(user) {}
  ~Reservation() { resize(0); }
  Reservation(const Reservation&) = delete;
  Reservation& operator=(const Reservation&) = delete;

  // Makes the reservation cover a buffer of `capacity` bytes (nothing when it is at most
  // kUnbudgetedBytes). False when growing would pass the budget; what is held then stays.
  bool resize(uint64_t capacity);
  // Whether resize(capacity) would find room now, counting no refusal (for a buffer that is
  // only worth taking where the budget covers it); another thread may take the room before it.
  bool would_fit(uint64_t capacity) const;
  uint64_t held() const { return held_; }

 private:
  BufferBudget* const budget_;
  const BudgetUser user_;
  uint64_t held_ = 0;
};

}  // namespace benchgate::router::memory
