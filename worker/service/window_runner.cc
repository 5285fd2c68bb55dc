#include "worker/service/window_runner.h"

#include <spdlog/spdlog.h>

#include "worker/service/proto_convert.h"

namespace benchgate::worker {

WindowRunner::WindowRunner(Engine& engine, Stream& stream)
    : engine_(engine), stream_(stream), thread_([this] { loop(); }) {}

WindowRunner::~WindowRunner() {
  {
    std::lock_guard lock(mutex_);
    closing_ = true;
    changed_.notify_all();
  }
  thread_.join();
}

void WindowRunner::submit(const WindowCommand& window) {
  std::lock_guard lock(mutex_);
  queue_.push_back(window);
  changed_.notify_all();
}

bool WindowRunner::write(const v1::RunEvent& event) {
  std::lock_guard lock(write_mutex_);
  return stream_.Write(event);
}

void WindowRunner::loop() {
  for (;;) {
    WindowCommand window;
    {
      std::unique_lock lock(mutex_);
      changed_.wait(lock, [this] { return closing_ || !queue_.empty(); });
      if (closing_) return;
      window = queue_.front();
      queue_.pop_front();
    }
    bool stream_ok = true;
    auto result = engine_.run_window(window, [&](const ProgressReport& report) {
      v1::RunEvent event;
      progress_to_proto(report, event.mutable_progress());
      stream_ok = stream_ok && write(event);
    });
    if (!result) {
      // Only stop() makes a validated window fail; the handler is ending the stream.
      spdlog::debug("window {} ended early: {}", window.index, result.message());
      return;
    }
    spdlog::info("window {}{}: {} operations, {} successes", window.index,
                 window.measured ? "" : " (warm-up)", result->operations, result->successes);
    v1::RunEvent event;
    result_to_proto(*result, event.mutable_result());
    if (!stream_ok || !write(event)) {
      spdlog::warn("the Run stream broke while window {} ran", window.index);
      return;
    }
  }
}

}  // namespace benchgate::worker
