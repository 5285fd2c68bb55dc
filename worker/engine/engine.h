// The load generation engine of one Run stream: connects the workload's connections, runs
// windows one at a time, and reports progress and results as domain types. It knows nothing
// about gRPC (docs/CONTRIBUTING.md, rule 5); worker/service/ drives it.
//
// Threads: the caller's thread runs connect and run_window (they block); stop() may be
// called from any thread and makes a running or later run_window return at once.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "common/util/expected.h"
#include "worker/engine/load_plan.h"
#include "worker/engine/protocol_driver.h"
#include "worker/engine/window_result.h"
#include "worker/engine/workload.h"

namespace benchgate::worker {

class LoadThread;

class Engine {
 public:
  using ProgressFn = std::function<void(const ProgressReport&)>;

  // Validates the spec, resolves the address, starts the threads and opens every connection
  // within connect_timeout. The error says which address failed and why.
  static Expected<std::unique_ptr<Engine>> start(const WorkloadSpec& spec);
  // Stops the load at once, closes every connection, joins the threads.
  ~Engine();

  // Every connection (WAMP: every session, callee and subscribers included).
  uint32_t connections() const { return sessions_; }
  uint32_t threads() const { return static_cast<uint32_t>(threads_.size()); }

  // Waits for the window's start instant, generates load for its duration, drains, and
  // returns the window's figures; `on_progress` is called on this thread every
  // progress_interval. Returns an error when stop() was called.
  Expected<WindowResult> run_window(const WindowCommand& window, const ProgressFn& on_progress);

  // Thread-safe. Aborts run_window; the engine only waits for destruction afterwards.
  void stop();

 private:
  Engine(std::unique_ptr<LoadPlan> plan, std::unique_ptr<ProtocolDriver> driver,
         const WorkloadSpec& spec);
  void wait_settled(int64_t deadline_ns);
  Expected<void> connect_all();
  ProgressReport take_progress(uint32_t window, int64_t interval_ns);
  WindowResult take_result(const WindowCommand& window);

  // Owned apart so the driver (and the connections it makes) can keep a reference to it.
  std::unique_ptr<LoadPlan> plan_owner_;
  const LoadPlan& plan_;
  std::unique_ptr<ProtocolDriver> driver_;
  uint32_t sessions_ = 0;
  std::string address_;
  uint32_t thread_count_ = 1;
  int64_t progress_interval_ns_ = 0;
  int64_t drain_timeout_ns_ = 0;
  int64_t connect_timeout_ns_ = 0;
  bool reports_setup_ = false;      // HTTP: connections timed; WAMP over TLS: handshakes
  bool transfer_ = false;           // wamp_transfer, wamp_rpc's session_per_operation: the window
                                    // carries the transfer sums
  bool wamp_ = false;               // WAMP: measured windows carry the session setups
  uint32_t requested_streams_ = 0;  // http2 only

  std::mutex mutex_;
  std::condition_variable changed_;
  bool stopping_ = false;
  uint32_t threads_done_ = 0;       // threads whose current window has drained
  uint32_t connect_succeeded_ = 0;  // during connect_all
  uint32_t connect_failed_ = 0;
  std::string connect_error_;
  bool connect_refused_ = false;  // connect_error_ is a LoadConnection::refusal()

  std::vector<std::unique_ptr<LoadThread>> threads_;
};

}  // namespace benchgate::worker
