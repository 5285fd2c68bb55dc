// The window as one load thread's connections see it: the phase, the window's instants,
// the thread's statistics and what decides when the drain is over: the count of unanswered
// requests and, open loop, of requests due inside the window that are not yet written (they
// are sent during the drain, docs/MEASUREMENT.md "Closed loop and open loop"). Owned by LoadThread
// and touched only on its thread.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>

#include "worker/engine/load_plan.h"
#include "worker/engine/thread_stats.h"
#include "worker/engine/window_result.h"

namespace benchgate::net {
class CompletionRing;
class ReadinessPoller;
}  // namespace benchgate::net
namespace benchgate::worker::http {
class OperationPool;
}

namespace benchgate::worker {

enum class Phase : uint8_t {
  kIdle,      // between windows: connections stay open, nothing is sent
  kWaiting,   // a window is scheduled; (re)connecting, waiting for its start instant
  kRunning,   // sending load
  kDraining,  // no new requests; waiting for the outstanding ones
};

struct ThreadState {
  explicit ThreadState(const LoadPlan& load_plan) : plan(load_plan) {}

  const LoadPlan& plan;
  ThreadStats stats;
  Phase phase = Phase::kIdle;
  int64_t start_ns = 0;  // steady clock
  int64_t end_ns = 0;    // steady clock
  uint32_t window_index = 0;
  // From begin_window until the engine took the window's statistics: late arrivals that
  // belong to the window (WAMP events) may still be counted.
  bool collecting = false;
  uint32_t outstanding = 0;
  // Open loop, during the drain: requests due inside the window not yet written.
  uint64_t owed = 0;
  // While the window's end is told to every connection: the drain is judged only after all
  // of them said what they still owe.
  bool ending = false;
  std::function<void()> on_drained;  // runs when a draining window has nothing outstanding
                                     // and owes nothing
  // Connections set up on this thread until a measured window takes them, and what stays
  // for the whole stream: the TLS the peer chose last, the fewest streams a connection got.
  ConnectionSetup setup;
  std::optional<NegotiatedTls> tls;
  uint32_t effective_streams = 0;  // 0: none established yet (or not http2)
  // LoadPlan::ring_io: the thread's io_uring, shared by its cleartext HTTP/1.1 connections
  // (set by the first; null where it could not be set up).
  net::CompletionRing* ring = nullptr;
  // LoadPlan::edge_poll: the thread's edge-triggered readiness set, shared the same way (set
  // by the first, before any socket of the thread is open: it needs a descriptor of its own).
  net::ReadinessPoller* poller = nullptr;
  // The memory of the asynchronous operations of the thread's HTTP/1.1 connections
  // (worker/http/operation_pool.h; set by the first).
  http::OperationPool* operations = nullptr;

  void request_sent() { ++outstanding; }
  void request_finished() {
    --outstanding;
    settle_if_drained();
  }
  // Requests due in the window that a connection still has to write (at the window's end).
  void owe(uint64_t n) { owed += n; }
  // Written during the drain, or written off when the drain deadline cut them off. The
  // caller calls settle_if_drained() once the requests it wrote are counted as outstanding.
  void paid(uint64_t n) { owed -= n; }
  void settle_if_drained() {
    if (outstanding == 0 && owed == 0 && phase == Phase::kDraining && !ending) on_drained();
  }
};

}  // namespace benchgate::worker
