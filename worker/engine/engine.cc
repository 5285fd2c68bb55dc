#include "worker/engine/engine.h"

#include <malloc.h>
#include <strings.h>
#include <algorithm>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <chrono>
#include <latch>
#include <limits>
#include <string>

#include "common/process/process_stats.h"
#include "common/time/clock.h"
#include "worker/engine/descriptor_limit.h"
#include "worker/engine/load_thread.h"
#include "worker/engine/validate.h"
#include "worker/http/request_builder.h"
#include "worker/http/tls_client.h"

namespace benchgate::worker {
namespace {

Expected<boost::asio::ip::tcp::endpoint> resolve(const std::string& address) {
  auto host_port = split_address(address);
  if (!host_port) return host_port.error();
  boost::asio::io_context io;
  boost::asio::ip::tcp::resolver resolver(io);
  boost::system::error_code ec;
  auto results = resolver.resolve(host_port->host, std::to_string(host_port->port), ec);
  if (ec || results.empty()) {
    return Error{"cannot resolve '" + address + "': " + (ec ? ec.message() : "no address")};
  }
  return results.begin()->endpoint();
}

}  // namespace

Expected<std::unique_ptr<Engine>> Engine::start(const WorkloadSpec& spec) {
  if (auto valid = validate_workload(spec); !valid) return valid.error();
  auto endpoint = resolve(spec.address);
  if (!endpoint) return endpoint.error();

  auto plan = std::make_unique<LoadPlan>();
  plan->endpoint = *endpoint;
  plan->in_flight = spec.in_flight;
  plan->connections = spec.connections;
  plan->rate = spec.rate;
  plan->schedule_first = spec.schedule_first;
  plan->schedule_connections = spec.schedule_connections;
  plan->progress = spec.progress_interval_ns > 0;
  if (spec.is_wamp()) {
    // The load-generating sessions; the driver adds callee or subscriber sessions.
    if (spec.wamp.kind == WampRequestSpec::Kind::kPubSub) plan->connections = spec.wamp.publishers;
  } else {
    HttpRequestSpec request = spec.http;
    // One request per connection: the server is told so (and closes its side too), unless the
    // scenario set a Connection header itself.
    if (spec.new_connection_per_request && !spec.is_http2() &&
        std::none_of(request.headers.begin(), request.headers.end(), [](const auto& h) {
          return strcasecmp(h.first.c_str(), "connection") == 0;
        })) {
      request.headers.emplace_back("Connection", "close");
    }
    plan->request = http::build_request(request, spec.address);
    plan->batch = http::repeat_request(plan->request, spec.in_flight);
    if (spec.http.expect_echo) {
      plan->expected_body = http::body_pattern(spec.http.request_body_bytes);
    }
    // Large reads take many pipelined responses per system call; with many connections the
    // buffers are kept smaller so memory stays bounded (10k connections: 160 MiB).
    plan->read_buffer_bytes = spec.connections <= 1024 ? 64 * 1024 : 16 * 1024;
    plan->expect_status = spec.http.expect_status;
    plan->expect_body_bytes = spec.http.expect_body_bytes;
    plan->expect_echo = spec.http.expect_echo;
    plan->head_requests = spec.http.method == "HEAD";
    plan->new_connection_per_request = spec.new_connection_per_request;
    plan->edge_poll = spec.http1_io == Http1Io::kEpoll;
    plan->ring_io = spec.http1_io == Http1Io::kUring;
    plan->streams = spec.http2.streams;
    plan->initial_window = spec.http2.initial_window;
    plan->max_frame_size = spec.http2.max_frame_size;
  }
  // TLS for every protocol: ALPN h2 (http2), http/1.1 (http1 and WebSocket), none (RawSocket)
  // unless the workload names its own.
  if (spec.tls.enabled) {
    std::vector<std::string> alpn;
    if (spec.is_http2()) {
      alpn = {"h2"};
    } else if (!spec.is_wamp() || spec.wamp.transport == WampRequestSpec::Transport::kWebSocket) {
      alpn = {"http/1.1"};
    }
    auto context = http::make_client_context(spec.tls, alpn);
    if (!context) return Error{"workload '" + spec.name + "': " + context.message()};
    plan->tls = std::move(context).value();
    plan->sni = spec.tls.sni;
    plan->tls_resumption = spec.tls.resumption;
    if (spec.tls.resumption) http::enable_session_reuse(*plan->tls);
    if (!spec.tls.insecure) {
      plan->verify_host = spec.tls.sni.empty() ? split_address(spec.address)->host : spec.tls.sni;
    }
  }
  auto driver = make_protocol_driver(spec, *plan);
  if (!driver) return driver.error();
  // Every session is a socket: refuse what the descriptor limit cannot hold before connecting.
  const uint32_t sessions = (*driver)->sessions();
  if (auto shortfall = descriptor_shortfall(sessions, std::min(spec.threads, sessions),
                                            current_descriptor_limit())) {
    return Error{*shortfall};  // the service names the workload
  }

  std::unique_ptr<Engine> engine(new Engine(std::move(plan), std::move(driver).value(), spec));
  if (auto connected = engine->connect_all(); !connected) return connected.error();
  return engine;
}

Engine::Engine(std::unique_ptr<LoadPlan> plan, std::unique_ptr<ProtocolDriver> driver,
               const WorkloadSpec& spec)
    : plan_owner_(std::move(plan)),
      plan_(*plan_owner_),
      driver_(std::move(driver)),
      sessions_(driver_->sessions()),
      address_(spec.address),
      // More threads than connections would idle; connections are spread evenly.
      thread_count_(std::min(spec.threads, sessions_)),
      progress_interval_ns_(spec.progress_interval_ns),
      drain_timeout_ns_(spec.drain_timeout_ns > 0 ? spec.drain_timeout_ns : kDefaultDrainTimeoutNs),
      connect_timeout_ns_(spec.connect_timeout_ns > 0 ? spec.connect_timeout_ns
                                                      : kDefaultConnectTimeoutNs),
      reports_setup_(!spec.is_wamp() || spec.tls.enabled),
      transfer_(spec.is_wamp() && (spec.wamp.kind == WampRequestSpec::Kind::kTransfer ||
                                   spec.wamp.session_per_operation)),
      wamp_(spec.is_wamp()),
      requested_streams_(spec.is_http2() ? spec.http2.streams : 0) {
  for (uint32_t t = 0; t < thread_count_; ++t) {
    std::vector<uint32_t> indices;
    for (uint32_t c = t; c < sessions_; c += thread_count_) indices.push_back(c);
    threads_.push_back(std::make_unique<LoadThread>(plan_, *driver_, indices, [this] {
      std::lock_guard lock(mutex_);
      ++threads_done_;
      changed_.notify_all();
    }));
  }
}

Engine::~Engine() {
  stop();
  threads_.clear();  // closes the connections and joins; callbacks into *this end here
}

void Engine::stop() {
  std::lock_guard lock(mutex_);
  stopping_ = true;
  changed_.notify_all();
}

Expected<void> Engine::connect_all() {
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::nanoseconds(connect_timeout_ns_);
  for (auto& thread : threads_) {
    thread->connect_all([this](const boost::system::error_code& ec, const std::string& refusal) {
      std::lock_guard lock(mutex_);
      if (ec) {
        if (connect_failed_++ == 0) {
          connect_error_ = refusal.empty() ? describe_connect_error(ec) : refusal;
          connect_refused_ = !refusal.empty();
        }
      } else {
        ++connect_succeeded_;
      }
      changed_.notify_all();
    });
  }
  std::unique_lock lock(mutex_);
  const bool settled = changed_.wait_until(lock, deadline, [this] {
    return stopping_ || connect_failed_ > 0 || connect_succeeded_ == sessions_;
  });
  if (stopping_) return Error{"stopped while connecting to " + address_};
  // A peer that refused the setup was connected to: its words, and where it is.
  if (connect_failed_ > 0 && connect_refused_) {
    return Error{connect_error_ + " (connected to " + address_ + ")"};
  }
  if (connect_failed_ > 0) return Error{"cannot connect to " + address_ + ": " + connect_error_};
  if (!settled) {
    return Error{"connecting to " + address_ + " timed out after " +
                 std::to_string(connect_timeout_ns_ / 1'000'000) + " ms (" +
                 std::to_string(connect_succeeded_) + " of " + std::to_string(sessions_) +
                 " connections established)"};
  }
  lock.unlock();  // the trim below walks the heap; nothing needs the lock meanwhile
  // The connect operations are freed now, and as the connections' own state was allocated
  // before them (worker/http/connection.cc), what is left of their memory lies together; glibc
  // keeps such memory resident inside an arena unless asked: about 50 bytes of RSS per idle
  // connection that waits through Asio (docs/PERFORMANCE.md, section 4). Once per Run stream.
  ::malloc_trim(0);
  return {};
}

Expected<WindowResult> Engine::run_window(const WindowCommand& window,
                                          const ProgressFn& on_progress) {
  if (auto valid = validate_window(window); !valid) return valid.error();
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return Error{"stopped"};
    threads_done_ = 0;
  }
  const int64_t unix_now = unix_now_ns();
  const int64_t steady_now = steady_now_ns();
  WindowTiming timing;
  timing.index = window.index;
  // The orchestrator's instant on this host's monotonic clock when it measured the offset;
  // else its Unix instant, converted once here (docs/MEASUREMENT.md "Clock offset and start
  // skew"). A start already past begins at once.
  timing.start_ns = window.start_at_worker_ns > 0
                        ? std::max(steady_now, window.start_at_worker_ns)
                        : steady_now + std::max<int64_t>(0, window.start_at_unix_ns - unix_now);
  timing.end_ns = timing.start_ns + window.duration_ns;
  timing.drain_deadline_ns = timing.end_ns + drain_timeout_ns_;
  driver_->window_starting();
  for (auto& thread : threads_) thread->begin_window(timing);

  std::unique_lock lock(mutex_);
  changed_.wait_until(lock, steady_point(timing.start_ns), [this] { return stopping_; });
  if (stopping_) return Error{"stopped"};
  lock.unlock();
  const CpuTimes cpu_start = self_cpu_times();
  const int64_t wall_start = steady_now_ns();

  int64_t last_tick = timing.start_ns;
  int64_t next_tick = timing.start_ns + progress_interval_ns_;
  const auto all_done = [this] { return stopping_ || threads_done_ == threads_.size(); };
  for (;;) {
    lock.lock();
    if (progress_interval_ns_ > 0) {
      changed_.wait_until(lock, steady_point(next_tick), all_done);
    } else {
      changed_.wait(lock, all_done);
    }
    if (stopping_) return Error{"stopped"};
    if (threads_done_ == threads_.size()) break;
    lock.unlock();
    const int64_t now = steady_now_ns();
    if (now < next_tick) continue;
    on_progress(take_progress(window.index, now - last_tick));
    last_tick = now;
    while (next_tick <= now) next_tick += progress_interval_ns_;
  }
  lock.unlock();
  wait_settled(timing.drain_deadline_ns);
  {
    std::lock_guard stop_lock(mutex_);
    if (stopping_) return Error{"stopped"};
  }

  WindowResult result = take_result(window);
  driver_->complete(result);
  const CpuTimes cpu_end = self_cpu_times();
  result.cpu_user_ns = cpu_end.user_ns - cpu_start.user_ns;
  result.cpu_system_ns = cpu_end.system_ns - cpu_start.system_ns;
  result.wall_ns = steady_now_ns() - wall_start;
  return result;
}

// What is still on its way after the threads drained (WAMP events) gets until the drain
// deadline; polled, since it is decided on other threads and only once per window.
void Engine::wait_settled(int64_t deadline_ns) {
  std::unique_lock lock(mutex_);
  while (!stopping_ && !driver_->window_settled() && steady_now_ns() < deadline_ns) {
    changed_.wait_for(lock, std::chrono::milliseconds(1));
  }
}

ProgressReport Engine::take_progress(uint32_t window, int64_t interval_ns) {
  std::vector<IntervalFigures> figures(threads_.size());
  std::latch done(static_cast<std::ptrdiff_t>(threads_.size()));
  for (size_t t = 0; t < threads_.size(); ++t) threads_[t]->take_interval(figures[t], done);
  done.wait();
  ProgressReport report;
  report.window = window;
  report.interval_ns = interval_ns;
  for (const IntervalFigures& f : figures) {
    report.operations += f.operations;
    report.errors += f.errors;
    report.latency.add(f.latency);
  }
  return report;
}

WindowResult Engine::take_result(const WindowCommand& window) {
  std::vector<ThreadStats> stats(threads_.size());
  std::vector<ThreadSetup> setups(threads_.size());
  std::latch done(static_cast<std::ptrdiff_t>(threads_.size()));
  for (size_t t = 0; t < threads_.size(); ++t) {
    threads_[t]->take_stats(stats[t], setups[t], window.measured, done);
  }
  done.wait();

  WindowResult result;
  result.window = window.index;
  result.open_loop = plan_.open_loop();
  result.threads = threads();
  int64_t first_send = std::numeric_limits<int64_t>::max();
  int64_t last_receive = 0;
  int64_t started = std::numeric_limits<int64_t>::max();
  for (const ThreadStats& s : stats) {
    result.operations += s.operations;
    result.successes += s.successes;
    result.window_successes += s.window_successes;
    result.window_bytes_received += s.window_bytes_received;
    result.window_payload_bytes += s.window_payload_bytes;
    result.window_connections += s.window_connections;
    if (s.started_ns > 0) {
      started = std::min(started, s.started_ns);
      ThreadCpu cpu{s.window_cpu_ns, std::nullopt, s.window_wall_ns};
      if (s.window_run_delay_ns >= 0) cpu.run_delay_ns = s.window_run_delay_ns;
      result.thread_cpu.push_back(cpu);
    }
    for (size_t k = 0; k < kErrorKindCount; ++k) result.errors[k] += s.errors[k];
    result.bytes_sent += s.bytes_sent;
    result.bytes_received += s.bytes_received;
    first_send = std::min(first_send, s.first_send_ns);
    last_receive = std::max(last_receive, s.last_receive_ns);
    result.latency.add(s.latency);
    result.service_time.add(s.service_time);
    result.late_sends += s.late_sends;
    result.unsent += s.unsent;
    for (const SessionEnd& e : s.sessions_ended) {
      add_session_end(result.sessions_ended, e.reason, e.sessions);
    }
    if (transfer_) {
      WindowResult::Transfer& t = result.transfer ? *result.transfer : result.transfer.emplace();
      t.transfers += s.transfers;
      t.data_bytes += s.transfer_data_bytes;
      t.data_ns += s.transfer_data_ns;
      t.lifecycle_bytes += s.transfer_lifecycle_bytes;
      t.lifecycle_ns += s.transfer_lifecycle_ns;
    }
  }
  if (wamp_ && window.measured) {
    HdrHistogram sessions;
    for (const ThreadSetup& s : setups) sessions.add(s.setup.session_setup);
    result.session_setup = std::move(sessions);
  }
  if (reports_setup_) {
    // Setups travel with measured windows only (a warm-up's result is not recorded).
    if (window.measured) {
      ConnectionSetup setup;
      for (const ThreadSetup& s : setups) setup.add(s.setup);
      result.setup = std::move(setup);
    }
    uint32_t effective = 0;
    for (const ThreadSetup& s : setups) {
      if (s.effective_streams > 0 && (effective == 0 || s.effective_streams < effective)) {
        effective = s.effective_streams;
      }
    }
    if (requested_streams_ > 0) {
      result.requested_streams = requested_streams_;
      result.effective_streams = effective;
    }
  }
  // TLS as the peer chose it, for every protocol (WAMP's channels report it too).
  for (const ThreadSetup& s : setups) {
    if (s.tls) result.tls = s.tls;
  }
  // Steady instants to Unix time, with one offset taken now.
  const int64_t to_unix = unix_now_ns() - steady_now_ns();
  if (first_send != std::numeric_limits<int64_t>::max()) {
    result.first_send_unix_ns = first_send + to_unix;
  }
  if (last_receive != 0) result.last_receive_unix_ns = last_receive + to_unix;
  if (started != std::numeric_limits<int64_t>::max()) {
    result.started_unix_ns = started + to_unix;
    result.started_steady_ns = started;
  }
  result.latency_clamped = clamped_operations(result.latency, result.service_time);
  return result;
}

}  // namespace benchgate::worker
