// One event loop of the load generator: a thread, its io_context and the connections
// assigned to it. All of its state is touched only on that thread; the engine talks to it by
// posting work and learns about it through the callbacks it passed in.
#pragma once

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <cstdint>
#include <functional>
#include <latch>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

#include "worker/engine/load_connection.h"
#include "worker/engine/load_plan.h"
#include "worker/engine/protocol_driver.h"
#include "worker/engine/thread_state.h"
#include "worker/engine/thread_stats.h"

namespace benchgate::worker {

// The instants of one window, on the steady clock.
struct WindowTiming {
  uint32_t index = 0;
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  int64_t drain_deadline_ns = 0;
};

// What a thread hands over at a progress tick.
struct IntervalFigures {
  uint64_t operations = 0;
  uint64_t errors = 0;
  HdrHistogram latency;
};

// What a thread hands over with a window's statistics about its connections.
struct ThreadSetup {
  ConnectionSetup setup;  // only when taken (a measured window)
  std::optional<NegotiatedTls> tls;
  uint32_t effective_streams = 0;
};

class LoadThread {
 public:
  // `connection_indices`: the workload-wide positions of this thread's connections, which
  // `driver` makes. `on_window_done` runs on this thread when a window has drained.
  LoadThread(const LoadPlan& plan, ProtocolDriver& driver,
             const std::vector<uint32_t>& connection_indices, std::function<void()> on_window_done);
  // Closes every connection and joins the thread.
  ~LoadThread();

  // Connects every connection; `on_connected(ec, refusal)` runs on this thread once per
  // connection (`refusal`: LoadConnection::refusal() of a connection that failed).
  using Connected =
      std::function<void(const boost::system::error_code& ec, const std::string& refusal)>;
  void connect_all(Connected on_connected);
  // Schedules a window; on_window_done runs when it has drained.
  void begin_window(const WindowTiming& timing);
  // Swaps the interval figures into `into` (which the caller reset), then counts down.
  void take_interval(IntervalFigures& into, std::latch& done);
  // Swaps the window's statistics into `into`, then counts down. Call after the window is done.
  // With `take_setup` (a measured window), also hands over the connection setups collected so
  // far into `setup`.
  void take_stats(ThreadStats& into, ThreadSetup& setup, bool take_setup, std::latch& done);

 private:
  void on_start();
  void on_end();
  void on_drain_deadline();
  void finish_window();

  // Only this thread touches the sockets and timers (the engine only posts), so Asio may drop
  // its per-descriptor locks; the scheduler keeps the lock post() needs.
  boost::asio::io_context io_{BOOST_ASIO_CONCURRENCY_HINT_UNSAFE_IO};
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work_;
  ThreadState state_;
  std::vector<std::unique_ptr<LoadConnection>> connections_;
  boost::asio::steady_timer phase_timer_;
  WindowTiming timing_;
  // Read at the window's start, for the thread's CPU figures at its end.
  int64_t cpu_at_start_ns_ = 0;
  std::optional<int64_t> run_delay_at_start_ns_;
  std::function<void()> on_window_done_;
  std::thread thread_;
};

}  // namespace benchgate::worker
