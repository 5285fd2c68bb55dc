// An echo body's buffer, for HTTP/1.1 (router/http/request_parser.h) and HTTP/2
// (router/http2/server_session.h) alike: how it grows as its bytes arrive, what it holds of the
// buffered-bytes budget, and the serving thread's spare body buffers it may start in.
//
// A body up to memory::kUnbudgetedBytes goes into a buffer the connection (an HTTP/2 stream's
// state) keeps. A longer one starts in the largest of the serving thread's spare body buffers
// (SpareBodies) when that is larger and the budget covers it: a body of known length
// (Content-Length) past what the connection keeps, in the smallest spare that holds its length
// (else the largest); a body whose length is unknown until its end (an HTTP/1.1 chunked body, an
// HTTP/2 stream's DATA) whenever the connection holds no body buffer of its own, in the largest.
// The buffer goes back after the answer (release_body_buffer), and so does one a body outgrew: the
// thread keeps freed buffers past memory::kUnbudgetedBytes and up to memory::kSpareBufferBytes
// each, SpareBodies::kMaxBytes (4 MiB) in all, so that as many large bodies at once as those
// hold (ten 100,000-byte HTTP/2 streams at once, on one connection or several) allocate
// nothing per request. Past that the thread keeps the larger buffers and frees the others. A
// body's reservation grows with its bytes (BodyTrust), and covers the whole of a spare it
// started in: every buffer a body holds past memory::kUnbudgetedBytes is in the budget, so a
// client that starts bodies and stalls them holds no memory outside it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "router/memory/buffer_budget.h"

namespace benchgate::router::http {

// The serving thread's spare body buffers: freed echo body buffers, each past
// memory::kUnbudgetedBytes (a smaller one is what a connection keeps itself) and at most
// memory::kSpareBufferBytes, kMaxBytes in all. Outside the buffered-bytes budget while they
// are spares (a body that takes one reserves its whole capacity). Touched by its thread only.
class SpareBodies {
 public:
  // What the thread's spares may hold in all: four of the largest (1 MiB), or 32 of the
  // 128 KiB a 100,000-byte body grows to.
  static constexpr uint64_t kMaxBytes = 4 * memory::kSpareBufferBytes;
  // How many there can be: each holds more than memory::kUnbudgetedBytes.
  static constexpr size_t kMaxCount = kMaxBytes / memory::kUnbudgetedBytes;

  // The thread's spares now: how many, their bytes (capacities) in all, the largest capacity
  // (0: none).
  static size_t count();
  static uint64_t bytes();
  static size_t largest();
  // `own` (empty) takes the smallest spare of at least `wanted` bytes, else the largest, when
  // that is larger than `own`'s buffer, which is freed; otherwise nothing changes.
  static void take_for(std::string& own, uint64_t wanted);
  // take_for any length: the largest.
  static void take_largest(std::string& own);
  // `own` has nothing left in it and ends up holding no memory: its buffer becomes a spare
  // when it is past memory::kUnbudgetedBytes, at most memory::kSpareBufferBytes and, with the
  // others, within kMaxBytes (smaller spares are freed to make room for it; a buffer no
  // larger than every spare that would have to go is freed instead).
  static void give_back(std::string& own);
  // Frees every spare (tests).
  static void clear();
};

// After an echo answer is written or refused: a body buffer past memory::kUnbudgetedBytes goes
// back to the thread's spares (SpareBodies::give_back: kept or freed) and `reservation`, which
// followed it, gives its bytes back to the budget.
void release_body_buffer(std::string& body, memory::Reservation& reservation);

// What one body's buffer has been trusted with so far: the capacity its bytes have made trusted;
// its reservation covers that or the buffer's own capacity (a spare it started in), the larger
// (past memory::kUnbudgetedBytes). A fresh one per body (a new RequestParser, a reset HTTP/2
// stream state).
class BodyTrust {
 public:
  uint64_t trusted() const { return trusted_; }
  // A body starts: `body` (empty) takes the thread's spare for `wanted` bytes
  // (SpareBodies::take_for) when that is larger and `budget` covers its whole capacity, which is
  // then reserved; otherwise nothing changes (no refusal is counted).
  void start_in_spare(std::string& body, memory::Reservation& budget, uint64_t wanted);
  // Reserves `capacity` of `budget` (or the buffer's capacity, when that is larger) and grows
  // `body` to exactly that where it has less (the buffer it outgrew goes to the thread's spares,
  // or is freed); false when the budget refuses (nothing changes then).
  bool trust(std::string& body, memory::Reservation& budget, uint64_t capacity);
  // A body of unknown length: `needed` bytes arrived, past trusted(). The first piece trusts
  // the capacity of the buffer the connection kept (nothing grows or is reserved while the
  // bytes fit in it), or starts in the thread's largest spare (start_in_spare) when the
  // connection holds no buffer on the heap; past what is trusted, trust() a capacity of at least
  // double that (within `max_body_bytes`). False when the budget refuses.
  bool trust_piece(std::string& body, memory::Reservation& budget, uint64_t needed,
                   uint64_t max_body_bytes);

 private:
  uint64_t trusted_ = 0;
  // Whether a piece has arrived (trust_piece then knows where the body started).
  bool started_ = false;
};

}  // namespace benchgate::router::http
