// What the WAMP engine tests share: an engine started from a spec, one measured window that
// starts 50 ms from now (so every load thread has it before anyone sends), and a window's
// error total. The tests of this folder compile together in batches (tests/CMakeLists.txt),
// so these live here once instead of as a same-named copy in each file.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <numeric>

#include "worker/engine/engine.h"

namespace benchgate::worker::test_support {

constexpr int64_t kMs = 1'000'000;

inline std::unique_ptr<Engine> start(const WorkloadSpec& spec) {
  auto engine = Engine::start(spec);
  EXPECT_TRUE(engine.ok()) << (engine.ok() ? "" : engine.message());
  return engine.ok() ? std::move(*engine) : nullptr;
}

inline WindowResult run(Engine& engine, uint32_t index = 0, int64_t duration_ns = 200 * kMs) {
  const int64_t start = std::chrono::duration_cast<std::chrono::nanoseconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count() +
                        50 * kMs;
  WindowCommand window;
  window.index = index;
  window.measured = true;
  window.start_at_unix_ns = start;
  window.duration_ns = duration_ns;
  auto result = engine.run_window(window, [](const ProgressReport&) {});
  EXPECT_TRUE(result.ok()) << (result.ok() ? "" : result.message());
  return result.ok() ? std::move(*result) : WindowResult();
}

inline uint64_t total_errors(const WindowResult& r) {
  return std::accumulate(r.errors.begin(), r.errors.end(), uint64_t{0});
}

}  // namespace benchgate::worker::test_support
