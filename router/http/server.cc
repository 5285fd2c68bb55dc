// Starting, observing and stopping the serving threads (see server.h).
#include "router/http/server.h"

#include <latch>

#include "common/process/process_stats.h"
#include "common/time/clock.h"

namespace benchgate::router::http {

HttpServer::HttpServer(const ServerOptions& options) : options_(options) {}

HttpServer::~HttpServer() { stop(); }

Expected<std::unique_ptr<HttpServer>> HttpServer::start(const ServerOptions& options) {
  if (options.threads < 1) return Error{"--threads must be at least 1"};
  std::unique_ptr<HttpServer> server(new HttpServer(options));
  boost::asio::ip::tcp::endpoint endpoint = options.endpoint;
  // One listener needs no SO_REUSEPORT; without it a port in use is always reported.
  const bool reuse_port = options.threads > 1;
  if (reuse_port && endpoint.port() != 0) {
    // SO_REUSEPORT would let us join another process's listeners on that port silently, so
    // first check with a plain bind that nobody listens there.
    auto probe = ServingThread(server->options_).listen(endpoint, false);
    if (!probe) return probe.error();
  }
  for (int i = 0; i < options.threads; ++i) {
    auto thread = std::make_unique<ServingThread>(server->options_);
    auto listening = thread->listen(endpoint, reuse_port);
    if (!listening) return listening.error();
    if (i == 0) endpoint.port(thread->port());
    server->threads_.push_back(std::move(thread));
  }
  server->endpoint_ = endpoint;
  for (auto& thread : server->threads_) thread->start();
  return server;
}

void HttpServer::for_each_thread_stats(const std::function<void(metrics::ThreadStats&)>& fn) {
  if (stopped_) {
    for (auto& thread : threads_) fn(thread->stats_when_stopped());
    return;
  }
  std::latch done(static_cast<std::ptrdiff_t>(threads_.size()));
  for (auto& thread : threads_) {
    thread->post([&](metrics::ThreadStats& stats) {
      fn(stats);
      done.count_down();
    });
  }
  done.wait();
}

metrics::Snapshot HttpServer::snapshot() {
  std::lock_guard lock(control_mutex_);
  metrics::Snapshot snapshot;
  std::mutex merge_mutex;
  for_each_thread_stats([&](metrics::ThreadStats& stats) {
    std::lock_guard merge_lock(merge_mutex);
    snapshot.counters.add(stats.counters);
    snapshot.connections_open += stats.connections_open;
    snapshot.read_buffers_held += stats.read_buffers_held;
    snapshot.handling.add(stats.handling);
    snapshot.tls[static_cast<size_t>(metrics::TlsListener::http)].add(stats.tls);
  });
  snapshot.tls_present = options_.tls_context != nullptr;
  if (const auto& budget = options_.buffer_budget) {
    snapshot.budget_present = true;
    snapshot.buffered_bytes = budget->in_use();
    snapshot.buffered_bytes_limit = budget->limit();
    for (int u = 0; u < memory::kBudgetUsers; ++u) {
      snapshot.budget_refusals[static_cast<size_t>(u)] =
          budget->refusals(static_cast<memory::BudgetUser>(u));
    }
  }
  snapshot.taken_at_unix_ns = unix_now_ns();
  snapshot.cpu = self_cpu_times();
  snapshot.rss_bytes = self_rss_bytes();
  snapshot.inject_work_ns = options_.inject_work_ns;
  return snapshot;
}

void HttpServer::reset_metrics() {
  std::lock_guard lock(control_mutex_);
  for_each_thread_stats([](metrics::ThreadStats& stats) { stats.reset(); });
  if (options_.buffer_budget) options_.buffer_budget->reset_refusals();
}

void HttpServer::stop() {
  std::lock_guard lock(control_mutex_);
  if (stopped_) return;
  stopped_ = true;
  for (auto& thread : threads_) thread->request_stop();
  for (auto& thread : threads_) thread->join();
}

}  // namespace benchgate::router::http
