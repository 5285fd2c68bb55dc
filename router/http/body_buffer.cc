// An echo body's buffer and its trust (see body_buffer.h).
#include "router/http/body_buffer.h"

#include <algorithm>
#include <array>

namespace benchgate::router::http {

namespace {

// The thread's spares: slots [0, count) hold them, in no order.
struct Spares {
  std::array<std::string, SpareBodies::kMaxCount> slots;
  size_t count = 0;
  uint64_t bytes = 0;
};

Spares& spares() {
  thread_local Spares held;
  return held;
}

// The slot of the spare with the smallest (or largest) capacity; count when there is none.
size_t extreme(const Spares& held, bool largest) {
  size_t at = held.count;
  for (size_t i = 0; i < held.count; ++i) {
    if (at == held.count || (largest ? held.slots[i].capacity() > held.slots[at].capacity()
                                     : held.slots[i].capacity() < held.slots[at].capacity())) {
      at = i;
    }
  }
  return at;
}

// Takes the spare in slot `at` out of the pool into `into` (whose buffer it gets; `into`'s
// own goes to the slot that is then dropped: freed here, by the swap with an empty string).
void take(Spares& held, size_t at, std::string& into) {
  held.bytes -= held.slots[at].capacity();
  into.swap(held.slots[at]);
  // The last spare moves into the freed slot; the slot past the pool holds no memory.
  --held.count;
  held.slots[at].swap(held.slots[held.count]);
  std::string().swap(held.slots[held.count]);
}

}  // namespace

size_t SpareBodies::count() { return spares().count; }

uint64_t SpareBodies::bytes() { return spares().bytes; }

size_t SpareBodies::largest() {
  const Spares& held = spares();
  const size_t at = extreme(held, true);
  return at == held.count ? 0 : held.slots[at].capacity();
}

void SpareBodies::take_largest(std::string& own) { take_for(own, UINT64_MAX); }

void SpareBodies::take_for(std::string& own, uint64_t wanted) {
  Spares& held = spares();
  // The smallest spare that holds `wanted`: a larger one stays for a larger body.
  size_t at = held.count;
  for (size_t i = 0; i < held.count; ++i) {
    const size_t capacity = held.slots[i].capacity();
    if (capacity >= wanted && (at == held.count || capacity < held.slots[at].capacity())) at = i;
  }
  if (at == held.count) at = extreme(held, true);  // none holds it: the largest
  if (at == held.count || held.slots[at].capacity() <= own.capacity()) return;
  take(held, at, own);
}

void SpareBodies::give_back(std::string& own) {
  std::string kept;
  kept.swap(own);  // `own` holds no memory from here on, whatever happens to its buffer
  const uint64_t capacity = kept.capacity();
  if (capacity <= memory::kUnbudgetedBytes || capacity > memory::kSpareBufferBytes) return;
  Spares& held = spares();
  // Room first, from spares smaller than this one, the smallest first: the thread keeps the
  // larger buffers, as it kept the larger of two when it had one spare. Where those smaller
  // spares cannot make room together, none goes and this buffer is freed.
  uint64_t smaller = 0;
  for (size_t i = 0; i < held.count; ++i) {
    if (held.slots[i].capacity() < capacity) smaller += held.slots[i].capacity();
  }
  if (held.bytes - smaller + capacity > kMaxBytes) return;
  while (held.bytes + capacity > kMaxBytes) {
    const size_t smallest = extreme(held, false);
    if (smallest == held.count || held.slots[smallest].capacity() >= capacity) return;
    std::string freed;
    take(held, smallest, freed);
  }
  kept.clear();
  held.slots[held.count].swap(kept);
  ++held.count;
  held.bytes += capacity;
}

void SpareBodies::clear() {
  Spares& held = spares();
  while (held.count > 0) {
    std::string freed;
    take(held, held.count - 1, freed);
  }
}

void release_body_buffer(std::string& body, memory::Reservation& reservation) {
  if (body.capacity() > memory::kUnbudgetedBytes) {
    body.clear();
    SpareBodies::give_back(body);
  }
  reservation.resize(body.capacity());
}

void BodyTrust::start_in_spare(std::string& body, memory::Reservation& budget, uint64_t wanted) {
  body.clear();
  // Only a spare the budget can cover in full: a body holds the whole buffer, whatever its bytes
  // (a stalled body that took a 1 MiB spare for one byte held 1 MiB outside the budget).
  std::string spare;
  SpareBodies::take_for(spare, wanted);
  if (spare.capacity() <= body.capacity() || !budget.would_fit(spare.capacity()) ||
      !budget.resize(spare.capacity())) {
    SpareBodies::give_back(spare);
    return;
  }
  body.swap(spare);
}

bool BodyTrust::trust(std::string& body, memory::Reservation& budget, uint64_t capacity) {
  // What the body holds is reserved in full: a spare it started in may be larger than what its
  // bytes make trusted.
  if (!budget.resize(std::max<uint64_t>(capacity, body.capacity()))) return false;
  trusted_ = capacity;
  if (capacity <= body.capacity()) return true;
  // Exactly that capacity (string::reserve may double past it on a string that holds some).
  std::string bigger;
  bigger.reserve(static_cast<size_t>(capacity));
  bigger.append(body);
  body.swap(bigger);
  bigger.clear();
  // The buffer the body outgrew goes to the thread's spares (past memory::kUnbudgetedBytes,
  // room permitting): a later large body starts from it instead of allocating its way up.
  SpareBodies::give_back(bigger);
  return true;
}

bool BodyTrust::trust_piece(std::string& body, memory::Reservation& budget, uint64_t needed,
                            uint64_t max_body_bytes) {
  if (!started_) {
    started_ = true;
    // The capacity the body grows from is the connection's own buffer's. A connection that
    // holds none on the heap (it gave a large body's buffer back after the answer; an empty
    // std::string's capacity is its inline one) starts in the thread's largest spare instead of
    // allocating its way up to the same size again: the length of the body is unknown until
    // its end, so every such body may take it.
    trusted_ = body.capacity();
    if (trusted_ <= std::string().capacity()) start_in_spare(body, budget, UINT64_MAX);
    // Bytes that fit in the buffer the connection kept (at most memory::kUnbudgetedBytes,
    // outside the budget) are trusted as they are: nothing grows, nothing is reserved.
    if (needed <= trusted_) return true;
  }
  // Doubling from what is trusted (within max_body_bytes), not from the spare's capacity: a body
  // grows past a spare as it would have grown without one.
  return trust(body, budget, std::max(needed, std::min(2 * trusted_, max_body_bytes)));
}

}  // namespace benchgate::router::http
