// An echo body's buffer and its trust (see body_buffer.h).
#include "router/http/body_buffer.h"

#include <algorithm>

namespace benchgate::router::http {

void release_body_buffer(std::string& body, memory::Reservation& reservation) {
  if (body.capacity() > memory::kUnbudgetedBytes) {
    body.clear();
    SpareBody::give_back(body, memory::kSpareBufferBytes);
  }
  reservation.resize(body.capacity());
}

void BodyTrust::start_in_spare(std::string& body) {
  if (SpareBody::get().capacity() > body.capacity()) {
    SpareBody::lend(body);
    body.clear();
  }
}

bool BodyTrust::trust(std::string& body, memory::Reservation& budget, uint64_t capacity) {
  if (!budget.resize(capacity)) return false;
  trusted_ = capacity;
  if (capacity <= body.capacity()) return true;
  // Exactly that capacity (string::reserve may double past it on a string that holds some).
  std::string bigger;
  bigger.reserve(static_cast<size_t>(capacity));
  bigger.append(body);
  body.swap(bigger);
  bigger.clear();
  // The buffer the body outgrew goes to the thread when it is the larger spare: the next
  // large body starts from it instead of allocating its way up again.
  SpareBody::give_back(bigger, memory::kSpareBufferBytes);
  return true;
}

bool BodyTrust::trust_piece(std::string& body, memory::Reservation& budget, uint64_t needed,
                            uint64_t max_body_bytes) {
  if (!started_) {
    started_ = true;
    // The capacity the body grows from is the connection's own buffer's. A connection that
    // holds none on the heap (it gave a large body's buffer back after the answer; an empty
    // std::string's capacity is its inline one) starts in the thread's spare instead of
    // allocating its way up to the same size again: the length of the body is unknown until
    // its end, so every such body may take it.
    trusted_ = body.capacity();
    if (trusted_ <= std::string().capacity()) start_in_spare(body);
    // Bytes that fit in the buffer the connection kept (at most memory::kUnbudgetedBytes,
    // outside the budget) are trusted as they are: nothing grows, nothing is reserved.
    if (needed <= trusted_) return true;
  }
  // Doubling from what is trusted (within max_body_bytes), not from the spare's capacity:
  // what the body holds of the budget follows its bytes alone, as for a body of known length.
  return trust(body, budget, std::max(needed, std::min(2 * trusted_, max_body_bytes)));
}

}  // namespace benchgate::router::http
