#include "worker/engine/load_thread.h"

#include <boost/asio/post.hpp>
#include <chrono>
#include <memory>
#include <string>
#include <utility>

#include "common/process/process_stats.h"
#include "common/time/clock.h"

namespace benchgate::worker {
namespace {

namespace asio = boost::asio;

}  // namespace

LoadThread::LoadThread(const LoadPlan& plan, ProtocolDriver& driver,
                       const std::vector<uint32_t>& connection_indices,
                       std::function<void()> on_window_done)
    : work_(io_.get_executor()),
      state_(plan),
      phase_timer_(io_),
      on_window_done_(std::move(on_window_done)) {
  // At once: grown by doubling, the array could hold up to as many unused slots again.
  connections_.reserve(connection_indices.size());
  for (uint32_t index : connection_indices) {
    connections_.push_back(driver.make_connection(io_, state_, index));
  }
  state_.on_drained = [this] { finish_window(); };
  thread_ = std::thread([this] { io_.run(); });
}

LoadThread::~LoadThread() {
  asio::post(io_, [this] {
    phase_timer_.cancel();
    for (auto& connection : connections_) connection->close();
    io_.stop();
  });
  thread_.join();
  // The operations the close aborted are still queued; run their handlers now, while the
  // connections whose memory they were allocated in (worker/http/handler_memory.h) live; the
  // HTTP/1.1 connections' pool (worker/http/operation_pool.h) lives as long as io_.
  io_.restart();
  io_.poll();
}

void LoadThread::connect_all(Connected on_connected) {
  // Shared by every connection's completion, which may run after this handler returned.
  auto shared = std::make_shared<Connected>(std::move(on_connected));
  asio::post(io_, [this, shared] {
    for (auto& connection : connections_) {
      connection->connect([shared, c = connection.get()](const boost::system::error_code& ec) {
        (*shared)(ec, ec ? c->refusal() : std::string());
      });
    }
  });
}

void LoadThread::begin_window(const WindowTiming& timing) {
  asio::post(io_, [this, timing] {
    timing_ = timing;
    state_.stats.reset();
    state_.stats.window_end_ns = timing.end_ns;
    state_.owed = 0;
    state_.window_index = timing.index;
    state_.collecting = true;
    state_.phase = Phase::kWaiting;
    state_.start_ns = timing.start_ns;
    state_.end_ns = timing.end_ns;
    for (auto& connection : connections_) connection->begin_window();
    phase_timer_.expires_at(steady_point(timing.start_ns));
    phase_timer_.async_wait([this](const boost::system::error_code& ec) {
      if (!ec) on_start();
    });
  });
}

void LoadThread::on_start() {
  state_.stats.started_ns = steady_now_ns();
  cpu_at_start_ns_ = thread_cpu_ns();
  run_delay_at_start_ns_ = thread_run_delay_ns();
  state_.phase = Phase::kRunning;
  for (auto& connection : connections_) connection->start_sending();
  phase_timer_.expires_at(steady_point(timing_.end_ns));
  phase_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (!ec) on_end();
  });
}

void LoadThread::on_end() {
  // The thread's CPU over the window alone: the drain is waiting, not load.
  ThreadStats& stats = state_.stats;
  stats.window_wall_ns = steady_now_ns() - stats.started_ns;
  stats.window_cpu_ns = thread_cpu_ns() - cpu_at_start_ns_;
  const std::optional<int64_t> run_delay = thread_run_delay_ns();
  if (run_delay && run_delay_at_start_ns_) {
    stats.window_run_delay_ns = *run_delay - *run_delay_at_start_ns_;
  }
  state_.phase = Phase::kDraining;
  state_.ending = true;
  for (auto& connection : connections_) connection->stop_sending();
  state_.ending = false;
  phase_timer_.expires_at(steady_point(timing_.drain_deadline_ns));
  phase_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (!ec) on_drain_deadline();
  });
  // Nothing outstanding and nothing owed: done at once (finish_window cancels the timer).
  state_.settle_if_drained();
}

void LoadThread::on_drain_deadline() {
  if (state_.phase != Phase::kDraining) return;
  // The last expiring connection brings `outstanding` to 0, which finishes the window.
  for (auto& connection : connections_) connection->expire();
}

void LoadThread::finish_window() {
  state_.phase = Phase::kIdle;
  phase_timer_.cancel();
  on_window_done_();
}

void LoadThread::take_interval(IntervalFigures& into, std::latch& done) {
  asio::post(io_, [this, &into, &done] {
    into.operations = std::exchange(state_.stats.interval_operations, 0);
    into.errors = std::exchange(state_.stats.interval_errors, 0);
    std::swap(into.latency, state_.stats.interval_latency);
    done.count_down();
  });
}

void LoadThread::take_stats(ThreadStats& into, ThreadSetup& setup, bool take_setup,
                            std::latch& done) {
  asio::post(io_, [this, &into, &setup, take_setup, &done] {
    std::swap(into, state_.stats);
    if (take_setup) std::swap(setup.setup, state_.setup);
    setup.tls = state_.tls;
    setup.effective_streams = state_.effective_streams;
    state_.collecting = false;
    done.count_down();
  });
}

}  // namespace benchgate::worker
