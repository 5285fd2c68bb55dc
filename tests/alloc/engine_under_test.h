// The worker's engine run in-process for the allocation tests: started, then one long window
// on a thread of the test's own (the test stops it once it has measured), with the kernel
// ids of every thread the engine runs on (those Engine::start started and the window's), so
// that the counting allocator's calls can be attributed to the worker alone.
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "counting_allocator.h"
#include "worker/engine/engine.h"

namespace benchgate::alloc_test {

class EngineUnderTest {
 public:
  // False (with a gtest failure) when the engine does not start.
  bool start(const worker::WorkloadSpec& spec) {
    const auto before = threads_now();
    auto engine = worker::Engine::start(spec);
    EXPECT_TRUE(engine.ok()) << (engine.ok() ? "" : engine.message());
    if (!engine.ok()) return false;
    engine_ = std::move(*engine);
    threads_ = started_between(before, threads_now());
    std::atomic<pid_t> window_thread{0};
    window_ = std::thread([this, &window_thread] {
      window_thread = this_thread();
      // Long enough for any measurement; stop() ends it.
      const worker::WindowCommand window{0, true, 0, 120'000'000'000};
      (void)engine_->run_window(window, [](const worker::ProgressReport&) {});
    });
    while (window_thread.load() == 0) std::this_thread::yield();
    threads_.push_back(window_thread.load());
    return true;
  }
  ~EngineUnderTest() { stop(); }

  void stop() {
    if (engine_) engine_->stop();
    if (window_.joinable()) window_.join();
    engine_.reset();
  }

  const std::vector<pid_t>& threads() const { return threads_; }

 private:
  std::unique_ptr<worker::Engine> engine_;
  std::vector<pid_t> threads_;
  std::thread window_;
};

// Operations counted by the system under test, read in a way that may allocate (on threads
// outside the measured set only, see measure()).
using OpsCounter = std::function<uint64_t()>;

struct Measured {
  uint64_t ops = 0;
  uint64_t allocations = 0;
};

// Waits (bounded, 60 s) until `ops` reaches `warmup`, then measures the allocation calls of
// `threads` while at least `measured` more operations complete. `ops` is polled, so it must
// not allocate on `threads`.
inline Measured measure_polled(const OpsCounter& ops, const std::vector<pid_t>& threads,
                               uint64_t warmup, uint64_t measured) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  auto wait_for = [&](uint64_t target) {
    uint64_t now = ops();
    while (now < target && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      now = ops();
    }
    return now;
  };
  wait_for(warmup);
  const uint64_t ops_start = ops();
  const uint64_t calls_start = allocations_of(threads);
  if (const char* trace = std::getenv("BENCHGATE_ALLOC_TRACE"))
    trace_allocations_of(threads, std::atoi(trace));
  wait_for(ops_start + measured);
  const uint64_t calls_end = allocations_of(threads);
  trace_allocations_of({}, 0);
  return {ops() - ops_start, calls_end - calls_start};
}

}  // namespace benchgate::alloc_test

namespace benchgate::alloc_test {

struct MeasuredPair {
  uint64_t ops = 0;
  uint64_t allocations_a = 0;
  uint64_t allocations_b = 0;
};

// For an `ops` whose reading allocates on the threads measured (the WAMP router's counters
// are read on its own thread): waits (bounded) for `warmup` operations, then reads `ops`,
// counts the calls of `a` and `b` over a pause with no reading in it, and reads `ops` again.
// The operations counted span the pause and the two readings, so they are at least those the
// allocations belong to. A pause too short for `measured` operations is tried again, longer
// (five times at most; the caller asserts the count it got).
inline MeasuredPair measure_bracketed(const OpsCounter& ops, const std::vector<pid_t>& a,
                                      const std::vector<pid_t>& b, uint64_t warmup,
                                      uint64_t measured) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (ops() < warmup && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  MeasuredPair m;
  auto pause = std::chrono::milliseconds(200);
  for (int attempt = 0; attempt < 5; ++attempt, pause *= 2) {
    const uint64_t ops_start = ops();
    const uint64_t a_start = allocations_of(a);
    const uint64_t b_start = allocations_of(b);
    if (const char* trace = std::getenv("BENCHGATE_ALLOC_TRACE")) {
      // BENCHGATE_ALLOC_TRACE_SIDE=a or b: the stacks of that side only.
      const char* side = std::getenv("BENCHGATE_ALLOC_TRACE_SIDE");
      std::vector<pid_t> traced;
      if (side == nullptr || side[0] != 'b') traced = a;
      if (side == nullptr || side[0] != 'a') traced.insert(traced.end(), b.begin(), b.end());
      trace_allocations_of(traced, std::atoi(trace));
    }
    std::this_thread::sleep_for(pause);
    trace_allocations_of({}, 0);
    const uint64_t a_end = allocations_of(a);
    const uint64_t b_end = allocations_of(b);
    m = {ops() - ops_start, a_end - a_start, b_end - b_start};
    if (m.ops >= measured) break;
  }
  return m;
}

}  // namespace benchgate::alloc_test
