// An echo body's buffer, for HTTP/1.1 (router/http/request_parser.h) and HTTP/2
// (router/http2/server_session.h) alike: how it grows as its bytes arrive, what it holds of the
// buffered-bytes budget, and the serving thread's spare body buffer it may start in.
//
// A body up to memory::kUnbudgetedBytes goes into a buffer the connection (an HTTP/2 stream's
// state) keeps. A longer one starts in the serving thread's spare body buffer (SpareBody) when
// that is larger: a body of known length (Content-Length) when it is past what the connection
// keeps; a body whose length is unknown until its end (an HTTP/1.1 chunked body, an HTTP/2
// stream's DATA) whenever the connection holds no body buffer of its own. The buffer goes back
// after the answer (release_body_buffer), the thread keeping the larger of it and the spare up
// to memory::kSpareBufferBytes: a stream of large bodies allocates nothing per request. The
// thread has one spare: a second large body at the same time (another connection's, another
// stream's) allocates as without it. What a body holds of the budget follows its bytes alone
// (BodyTrust): a spare larger than that is counted only as far as the bytes that arrived make
// it trusted.
#pragma once

#include <cstdint>
#include <string>

#include "common/util/thread_spare.h"
#include "router/memory/buffer_budget.h"

namespace benchgate::router::http {

// The serving thread's spare body buffer (common/util/thread_spare.h).
struct SpareBodyTag {};
using SpareBody = ThreadSpare<SpareBodyTag, std::string>;

// After an echo answer is written or refused: a body buffer past memory::kUnbudgetedBytes goes
// back to the thread (the larger of it and the spare is kept, up to memory::kSpareBufferBytes;
// the other is freed) and `reservation`, which followed it, gives its bytes back to the budget.
void release_body_buffer(std::string& body, memory::Reservation& reservation);

// What one body's buffer has been trusted with so far: the capacity its reservation follows
// (past memory::kUnbudgetedBytes); the buffer may be larger (the thread's spare). A fresh one
// per body (a new RequestParser, a reset HTTP/2 stream state).
class BodyTrust {
 public:
  uint64_t trusted() const { return trusted_; }
  // A body of known length starts: `body` (empty) takes the thread's spare when that is larger.
  static void start_in_spare(std::string& body);
  // Reserves `capacity` of `budget` and grows `body` to exactly that where it has less (the
  // buffer it outgrew goes to the thread's spare, or is freed); false when the budget refuses
  // (nothing changes then).
  bool trust(std::string& body, memory::Reservation& budget, uint64_t capacity);
  // A body of unknown length: `needed` bytes arrived, past trusted(). The first piece trusts
  // the capacity of the buffer the connection kept (nothing grows or is reserved while the
  // bytes fit in it), or starts in the thread's spare when the connection holds no buffer on
  // the heap; past what is trusted, trust() a capacity of at least double that (within
  // `max_body_bytes`; doubling from what is trusted, not from the spare's size). False when
  // the budget refuses.
  bool trust_piece(std::string& body, memory::Reservation& budget, uint64_t needed,
                   uint64_t max_body_bytes);

 private:
  uint64_t trusted_ = 0;
  // Whether a piece has arrived (trust_piece then knows where the body started).
  bool started_ = false;
};

}  // namespace benchgate::router::http
