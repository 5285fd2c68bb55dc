// Clocks. Latencies use std::chrono::steady_clock (CLOCK_MONOTONIC, docs/MEASUREMENT.md); instants
// shared between processes (a window's start) travel as CLOCK_REALTIME nanoseconds.
#pragma once

#include <chrono>
#include <cstdint>

namespace benchgate {

inline int64_t unix_now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

inline int64_t steady_now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// The steady-clock instant `ns` nanoseconds after the clock's epoch (what steady_now_ns()
// returns), for timers: std::chrono::steady_clock is also Boost.Asio's steady_timer clock.
inline std::chrono::steady_clock::time_point steady_point(int64_t ns) {
  return std::chrono::steady_clock::time_point(std::chrono::nanoseconds(ns));
}

// The steady-clock instant that corresponds to a Unix-time instant, as seen now.
inline std::chrono::steady_clock::time_point steady_from_unix_ns(int64_t unix_ns) {
  return std::chrono::steady_clock::now() + std::chrono::nanoseconds(unix_ns - unix_now_ns());
}

}  // namespace benchgate
