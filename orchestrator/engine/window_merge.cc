#include "orchestrator/engine/window_merge.h"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>

#include "orchestrator/workers/result_checks.h"

namespace benchgate::engine {
namespace {

Error malformed(size_t worker, const std::string& what) {
  return Error{"worker " + std::to_string(worker) + " sent a malformed result: " + what};
}

// The pool's index of the worker that sent part `i` (merge_window's `workers`).
size_t worker_of(const std::vector<size_t>& workers, size_t i) {
  return i < workers.size() ? workers[i] : i;
}

// The workers' figures summed. A worker may report any uint64 or int64 (a custom worker, a
// broken one), and a sum past what its type holds would wrap round to a small number that
// passes for a measurement: the first addition that would is kept as the window's error,
// naming the field and the worker that sent the largest figure into that sum (the one whose
// figure happened to be added last may have sent a small one).
class CheckedSums {
 public:
  explicit CheckedSums(const std::vector<size_t>& workers) : workers_(workers) {}

  // `field`: what the worker sent; `summed`: the sum it went into (the field's own by default).
  template <typename T>
  void add(T& sum, T value, size_t part, uint32_t window, const std::string& field,
           const std::string& summed = {}) {
    if (error_) return;
    Extremes& seen = extremes_[&sum];
    seen.take(value, part, window, field);
    if (!__builtin_add_overflow(sum, value, &sum)) return;
    bool below = false;
    if constexpr (std::is_signed_v<T>) below = value < 0;
    fail(below ? seen.smallest : seen.largest,
         below ? std::to_string(std::numeric_limits<T>::min())
               : std::to_string(std::numeric_limits<T>::max()),
         summed.empty() ? field : summed);
  }

  // A histogram's samples: HdrHistogram::add refuses a total count past INT64_MAX, changing
  // nothing (every histogram merged here has benchgate's layout, decode() checked).
  void add(HdrHistogram& sum, const HdrHistogram& value, size_t part, uint32_t window,
           const std::string& field) {
    if (error_) return;
    Extremes& seen = extremes_[&sum];
    seen.take(value.total_count(), part, window, field + " samples");
    if (sum.add(value)) return;
    fail(seen.largest, std::to_string(std::numeric_limits<int64_t>::max()), field + " samples");
  }

  const std::optional<Error>& error() const { return error_; }

 private:
  struct Figure {
    __int128 value = 0;
    size_t part = 0;
    uint32_t window = 0;
    std::string field;
  };
  // The largest and the smallest figure added into one sum, the first of equal ones.
  struct Extremes {
    std::optional<Figure> largest, smallest;
    void take(__int128 value, size_t part, uint32_t window, const std::string& field) {
      if (!largest || value > largest->value) largest = Figure{value, part, window, field};
      if (!smallest || value < smallest->value) smallest = Figure{value, part, window, field};
    }
  };

  static std::string text(__int128 value) {
    if (value < 0) return "-" + std::to_string(static_cast<uint64_t>(-value));
    return std::to_string(static_cast<uint64_t>(value));
  }

  void fail(const std::optional<Figure>& figure, const std::string& bound,
            const std::string& summed) {
    error_ = malformed(worker_of(workers_, figure->part),
                       "in window " + std::to_string(figure->window) + ", " + figure->field + " " +
                           text(figure->value) + " takes the workers' sum of " + summed + " past " +
                           bound + " (no measured figure is that large)");
  }

  const std::vector<size_t>& workers_;
  std::map<const void*, Extremes> extremes_;  // by the sum's address
  std::optional<Error> error_;
};

// The rules a result must obey whatever the workload and wherever its worker runs
// (workers/result_checks.h check_result, which worker-check applies too): a result that
// contradicts itself fails the window rather than become a figure. Its instants are judged
// against the window's Unix start, `start_unix_ns`, and its start on the worker's own clock,
// `start_on_worker` (0: none sent).
Expected<void> check_consistent(const v1::WindowResult& part, size_t worker, int64_t start_unix_ns,
                                int64_t duration_ns, int64_t start_on_worker) {
  const workers::WindowFacts window{part.window(), start_unix_ns, duration_ns, 0, start_on_worker};
  if (std::string problem = workers::check_result(part, window); !problem.empty()) {
    return malformed(worker, problem);
  }
  return {};
}

// Merging is exact bucket by bucket only within one layout; another one would be re-bucketed
// (or its samples above our highest value dropped), so it is rejected, as worker-check does.
Expected<HdrHistogram> decode(const v1::Histogram& histogram, size_t worker, const char* what) {
  const auto& blob = histogram.hdr_v2_compressed();
  const auto bytes = std::span(reinterpret_cast<const uint8_t*>(blob.data()), blob.size());
  // The layout first, from the header: counts made for another layout need not even fit the
  // one declared, and the layout is what the worker has to change.
  if (auto layout = HdrHistogram::decode_layout(bytes);
      layout && *layout != HdrHistogram().layout()) {
    return Error{"worker " + std::to_string(worker) + " sent a " + what +
                 " histogram of another layout: " + std::to_string(layout->lowest) + ".." +
                 std::to_string(layout->highest) + " ns with " +
                 std::to_string(layout->significant_digits) +
                 " digits, not 1..3600000000000 ns with 3 digits (docs/WORKER_PROTOCOL.md)"};
  }
  auto decoded = HdrHistogram::decode(bytes);
  if (!decoded) {
    return Error{"worker " + std::to_string(worker) +
                 " sent a malformed result: an unreadable histogram (" + what +
                 "): " + decoded.message()};
  }
  return decoded;
}

// The share of the window the busiest thread ran, and the share the longest-waiting one
// waited for a CPU (absent when a thread could not tell).
struct ThreadShares {
  double busy = 0;
  std::optional<double> waiting;
};

ThreadShares thread_shares(const v1::WindowResult& part) {
  ThreadShares out;
  bool wait_known = !part.thread_cpu().empty();
  double waiting = 0;
  for (const auto& thread : part.thread_cpu()) {
    if (thread.wall_ns() <= 0) continue;
    const auto wall = static_cast<double>(thread.wall_ns());
    out.busy = std::max(out.busy, static_cast<double>(thread.cpu_ns()) / wall);
    if (!thread.has_run_delay_ns()) {
      wait_known = false;
    } else {
      waiting = std::max(waiting, static_cast<double>(thread.run_delay_ns()) / wall);
    }
  }
  if (wait_known) out.waiting = waiting;
  return out;
}

results::ToolLatency from_proto(const v1::ToolLatency& t) {
  results::ToolLatency out;
  out.tool = t.tool();
  if (t.has_min_ns()) out.min_ns = t.min_ns();
  if (t.has_mean_ns()) out.mean_ns = t.mean_ns();
  if (t.has_stdev_ns()) out.stdev_ns = t.stdev_ns();
  if (t.has_max_ns()) out.max_ns = t.max_ns();
  for (const auto& [key, ns] : t.percentiles_ns()) out.percentiles_ns[key] = ns;
  return out;
}

// One tool's figures from several workers. Each worker printed its own percentiles over its
// own requests; nothing recovers the percentile of the union from them, so they are dropped
// (not measured), as is the standard deviation. The mean is weighted by successes, min and max
// are exact; a figure any worker lacks is absent.
results::ToolLatency combine_tool_latency(const std::vector<v1::WindowResult>& parts) {
  results::ToolLatency out = from_proto(parts.front().tool_latency());
  if (parts.size() == 1) return out;
  out.percentiles_ns.clear();
  out.stdev_ns.reset();
  double weighted = 0;
  double weight = 0;
  for (const auto& part : parts) {
    const auto& t = part.tool_latency();
    out.min_ns = out.min_ns && t.has_min_ns() ? std::optional(std::min(*out.min_ns, t.min_ns()))
                                              : std::nullopt;
    out.max_ns = out.max_ns && t.has_max_ns() ? std::optional(std::max(*out.max_ns, t.max_ns()))
                                              : std::nullopt;
    if (!t.has_mean_ns()) {
      weight = -1;
    } else if (weight >= 0) {
      weighted += static_cast<double>(t.mean_ns()) * static_cast<double>(part.successes());
      weight += static_cast<double>(part.successes());
    }
  }
  out.mean_ns.reset();
  if (weight > 0) out.mean_ns = static_cast<int64_t>(weighted / weight + 0.5);
  return out;
}

// The workers' connection setups, merged; nothing unless every worker reported one (a worker
// that predates them, or a WAMP one, did not measure it).
Expected<std::optional<results::ConnectionSetup>> merge_setup(
    const std::vector<v1::WindowResult>& parts, const std::vector<size_t>& workers) {
  results::ConnectionSetup merged;
  CheckedSums sums(workers);
  for (size_t w = 0; w < parts.size(); ++w) {
    if (!parts[w].has_setup()) return std::optional<results::ConnectionSetup>();
    const v1::ConnectionSetup& setup = parts[w].setup();
    const uint32_t window = parts[w].window();
    sums.add(merged.connections, setup.connections(), w, window, "setup.connections");
    sums.add(merged.handshakes, setup.handshakes(), w, window, "setup.handshakes");
    sums.add(merged.resumed, setup.resumed(), w, window, "setup.resumed");
    if (sums.error()) return *sums.error();
    const std::tuple<const v1::Histogram*, HdrHistogram*, const char*> histograms[] = {
        {&setup.connect(), &merged.connect, "setup.connect"},
        {&setup.tls_handshake(), &merged.tls_handshake, "setup.tls_handshake"},
        {&setup.ttfb(), &merged.ttfb, "setup.ttfb"}};
    for (const auto& [proto, into, field] : histograms) {
      if (proto->hdr_v2_compressed().empty()) continue;
      auto decoded = decode(*proto, worker_of(workers, w), "connection setup");
      if (!decoded) return decoded.error();
      sums.add(*into, *decoded, w, window, field);
      if (sums.error()) return *sums.error();
    }
  }
  if (parts.empty()) return std::optional<results::ConnectionSetup>();
  return std::optional<results::ConnectionSetup>(std::move(merged));
}

}  // namespace

bool rate_not_kept(double scheduled, uint64_t late_sends, uint64_t unsent) {
  const double allowed = kRateNotKeptShare * scheduled;
  return static_cast<double>(late_sends) > allowed || static_cast<double>(unsent) > allowed;
}

Expected<results::Repetition> merge_window(const std::vector<v1::WindowResult>& parts,
                                           uint32_t index, int64_t start_unix_ns,
                                           int64_t duration_ns, const std::vector<size_t>& workers,
                                           double rate,
                                           const std::vector<int64_t>& starts_on_worker) {
  results::Repetition rep;
  rep.index = index;
  rep.start_unix_ns = start_unix_ns;
  rep.duration_ns = duration_ns;
  int64_t first_send = std::numeric_limits<int64_t>::max();
  int64_t last_receive = 0;
  size_t with_tool = 0;
  size_t with_in_window = 0;
  std::vector<double> in_window_rates;  // each worker's, used when every worker counts them
  bool wait_known = true;
  for (const auto& part : parts) {
    if (part.has_tool_latency()) ++with_tool;
    rep.not_measured.insert(part.not_measured().begin(), part.not_measured().end());
  }
  // Tool figures and histograms do not mix: neither could stand for the union.
  if (with_tool > 0 && with_tool < parts.size()) {
    return Error{
        "workers of one window sent different kinds of latency: " + std::to_string(with_tool) +
        " printed tool figures, " + std::to_string(parts.size() - with_tool) + " histograms"};
  }
  if (with_tool > 0) rep.tool_latency = combine_tool_latency(parts);
  auto setup = merge_setup(parts, workers);
  if (!setup) return setup.error();
  rep.setup = std::move(*setup);
  CheckedSums sums(workers);
  if (rep.setup) {
    uint64_t connections = 0;
    for (size_t i = 0; i < parts.size(); ++i) {
      sums.add(connections, parts[i].window_connections(), i, parts[i].window(),
               "window_connections");
    }
    rep.window_connections = connections;
  }
  // WAMP: every worker's session setups, or nothing unless every worker reported them.
  if (!parts.empty() && std::all_of(parts.begin(), parts.end(),
                                    [](const auto& p) { return p.has_session_setup(); })) {
    HdrHistogram sessions;
    for (size_t w = 0; w < parts.size(); ++w) {
      auto h = decode(parts[w].session_setup(), worker_of(workers, w), "session_setup");
      if (!h) return h.error();
      sums.add(sessions, *h, w, parts[w].window(), "session_setup");
      if (sums.error()) return *sums.error();
    }
    rep.session_setup = std::move(sessions);
  }
  // wamp_rpc with callee = "worker": every worker's callee sessions, in worker order.
  for (const auto& part : parts) {
    rep.callee_invocations.insert(rep.callee_invocations.end(), part.callee_invocations().begin(),
                                  part.callee_invocations().end());
  }
  // wamp_transfer: the sums of every worker, or nothing unless every worker reported them.
  if (std::all_of(parts.begin(), parts.end(), [](const auto& p) { return p.has_transfer(); })) {
    results::TransferSums transfer;
    for (size_t i = 0; i < parts.size(); ++i) {
      const auto& t = parts[i].transfer();
      const uint32_t window = parts[i].window();
      sums.add(transfer.transfers, t.transfers(), i, window, "transfer.transfers");
      sums.add(transfer.data_bytes, t.data_bytes(), i, window, "transfer.data_bytes");
      sums.add(transfer.data_ns, t.data_ns(), i, window, "transfer.data_ns");
      sums.add(transfer.lifecycle_bytes, t.lifecycle_bytes(), i, window,
               "transfer.lifecycle_bytes");
      sums.add(transfer.lifecycle_ns, t.lifecycle_ns(), i, window, "transfer.lifecycle_ns");
    }
    if (!parts.empty()) rep.transfer = transfer;
  }
  if (sums.error()) return *sums.error();
  uint64_t error_total = 0;  // Repetition::error_count(), which must not wrap either
  for (size_t i = 0; i < parts.size(); ++i) {
    const auto& part = parts[i];
    const size_t w = worker_of(workers, i);
    const int64_t start_on_worker = i < starts_on_worker.size() ? starts_on_worker[i] : 0;
    if (auto consistent = check_consistent(part, w, start_unix_ns, duration_ns, start_on_worker);
        !consistent) {
      return consistent.error();
    }
    if (part.has_tls())
      rep.tls =
          results::NegotiatedTls{part.tls().version(), part.tls().cipher(), part.tls().alpn()};
    if (part.requested_streams() > 0) {
      rep.requested_streams = std::max(rep.requested_streams, part.requested_streams());
      if (part.effective_streams() > 0 &&
          (rep.effective_streams == 0 || part.effective_streams() < rep.effective_streams)) {
        rep.effective_streams = part.effective_streams();
      }
    }
    const uint32_t window = part.window();
    sums.add(rep.operations, part.operations(), i, window, "operations");
    sums.add(rep.successes, part.successes(), i, window, "successes");
    if (part.has_in_window()) {
      ++with_in_window;
      const v1::InWindow& in = part.in_window();
      sums.add(rep.window_successes, in.successes(), i, window, "in_window.successes");
      sums.add(rep.window_bytes_received, in.bytes_received(), i, window,
               "in_window.bytes_received");
      sums.add(rep.window_payload_bytes, in.payload_bytes(), i, window, "in_window.payload_bytes");
    }
    sums.add(rep.latency_clamped, part.latency_clamped(), i, window, "latency_clamped");
    for (const auto& [kind, count] : part.errors()) {
      if (!count) continue;
      sums.add(rep.errors[kind], count, i, window, "errors." + kind);
      sums.add(error_total, count, i, window, "errors." + kind, "errors of every kind");
    }
    sums.add(rep.bytes_sent, part.bytes_sent(), i, window, "bytes_sent");
    sums.add(rep.bytes_received, part.bytes_received(), i, window, "bytes_received");
    sums.add(rep.late_sends, part.late_sends(), i, window, "late_sends");
    sums.add(rep.unsent, part.unsent(), i, window, "unsent");
    sums.add(rep.events_expected, part.events_expected(), i, window, "events_expected");
    sums.add(rep.events_delivered, part.events_delivered(), i, window, "events_delivered");
    if (sums.error()) return *sums.error();
    // An instant of 0 is not reported (docs/WORKER_PROTOCOL.md: a worker that wrote nothing
    // yet, or read no answer, leaves it 0): taken as the Unix epoch, it would stretch the
    // merged data window back to 1970 and its throughput to nothing.
    if (part.operations() > 0 && part.first_send_unix_ns() != 0) {
      first_send = std::min(first_send, part.first_send_unix_ns());
    }
    if (part.operations() > 0 && part.last_receive_unix_ns() != 0) {
      last_receive = std::max(last_receive, part.last_receive_unix_ns());
    }
    int64_t samples = 0;
    results::WorkerShare share;
    share.worker = static_cast<uint32_t>(w);
    share.operations = part.operations();
    share.successes = part.successes();
    // At most error_total, which was summed without wrapping above.
    for (const auto& [kind, count] : part.errors()) share.errors += count;
    if (part.has_latency() && !part.latency().hdr_v2_compressed().empty()) {
      auto latency = decode(part.latency(), w, "latency");
      if (!latency) return latency.error();
      samples = latency->total_count();
      if (samples > 0) {
        share.p50_ns = latency->value_at_percentile(50);
        share.p99_ns = latency->value_at_percentile(99);
        share.max_ns = latency->max();
      }
      sums.add(rep.latency, *latency, i, window, "latency");
      if (sums.error()) return *sums.error();
    }
    // The worker's own rate on the definition of Repetition::ops_per_second: what completed
    // in the window over the window when every worker counts it (decided after the loop),
    // else its successes over its own data window (the configured window without one).
    if (part.has_in_window() && duration_ns > 0) {
      in_window_rates.push_back(static_cast<double>(part.in_window().successes()) * 1e9 /
                                static_cast<double>(duration_ns));
    } else {
      in_window_rates.push_back(0);
    }
    const bool data_window = std::find(part.not_measured().begin(), part.not_measured().end(),
                                       "data_window") == part.not_measured().end();
    const int64_t own_span = part.operations() > 0 && part.first_send_unix_ns() != 0 &&
                                     part.last_receive_unix_ns() > part.first_send_unix_ns()
                                 ? part.last_receive_unix_ns() - part.first_send_unix_ns()
                                 : 0;
    const int64_t own_window = data_window ? own_span : duration_ns;
    if (own_window > 0) {
      share.ops_per_second =
          static_cast<double>(part.successes()) * 1e9 / static_cast<double>(own_window);
    }
    // Each worker's result must hold itself together, so a broken one is named. A tool's
    // figures come without a histogram: there is nothing to check them against.
    if (std::string count = workers::check_latency_count(part, samples); !count.empty()) {
      return malformed(w, "in window " + std::to_string(part.window()) + ", " + count);
    }
    if (part.has_service_time() && !part.service_time().hdr_v2_compressed().empty()) {
      auto service = decode(part.service_time(), w, "service time");
      if (!service) return service.error();
      if (!rep.service_time) rep.service_time.emplace();
      sums.add(*rep.service_time, *service, i, window, "service_time");
      if (sums.error()) return *sums.error();
    }
    // Added as doubles: a worker's two int64 figures may sum past INT64_MAX.
    const double cpu_ns =
        static_cast<double>(part.cpu_user_ns()) + static_cast<double>(part.cpu_system_ns());
    rep.worker_cpu_seconds += cpu_ns / 1e9;
    // Each load thread's CPU over the window when the worker reports it; else (a worker
    // that predates it) its process CPU over its wall time and threads, drain included.
    if (!part.thread_cpu().empty()) {
      const ThreadShares shares = thread_shares(part);
      rep.worker_cpu_utilization = std::max(rep.worker_cpu_utilization, shares.busy);
      share.cpu_utilization = shares.busy;
      if (shares.waiting) {
        rep.worker_cpu_wait_share =
            std::max(rep.worker_cpu_wait_share.value_or(0), *shares.waiting);
      } else {
        wait_known = false;
      }
    } else {
      wait_known = false;
      if (part.wall_ns() > 0 && part.threads() > 0) {
        const double utilization =
            cpu_ns / (static_cast<double>(part.wall_ns()) * static_cast<double>(part.threads()));
        rep.worker_cpu_utilization = std::max(rep.worker_cpu_utilization, utilization);
        share.cpu_utilization = utilization;
      }
    }
    rep.workers.push_back(share);
  }
  // In-window counts from some workers only would mix two definitions: all or none.
  rep.in_window = !parts.empty() && with_in_window == parts.size();
  if (rep.in_window) {
    for (size_t w = 0; w < rep.workers.size(); ++w) {
      rep.workers[w].ops_per_second = in_window_rates[w];
    }
  }
  if (!rep.in_window) {
    rep.window_successes = rep.window_bytes_received = rep.window_payload_bytes = 0;
    rep.flags.push_back("throughput_span");
  }
  if (!wait_known) rep.worker_cpu_wait_share.reset();
  if (last_receive > first_send && rep.measured("data_window")) {
    rep.data_window_ns = last_receive - first_send;
  }
  if (!rep.measured("cpu")) {
    for (auto& share : rep.workers) share.cpu_utilization.reset();
    rep.worker_cpu_seconds = 0;
    rep.worker_cpu_utilization = 0;
    rep.worker_cpu_wait_share.reset();
  } else {
    if (rep.worker_cpu_utilization >= kSaturationThreshold) rep.flags.push_back("worker_saturated");
    if (rep.worker_cpu_wait_share && *rep.worker_cpu_wait_share >= kCpuStarvedThreshold) {
      rep.flags.push_back("worker_cpu_starved");
    }
  }
  if (rep.latency_clamped > 0) rep.flags.push_back("latency_clamped");
  // Each count judged where the workers measured it (not_measured: no count to judge).
  if (rate > 0) {
    const uint64_t late = rep.measured("late_sends") ? rep.late_sends : 0;
    const uint64_t unwritten = rep.measured("unsent") ? rep.unsent : 0;
    if (rate_not_kept(rate * static_cast<double>(duration_ns) / 1e9, late, unwritten)) {
      rep.flags.push_back("rate_not_kept");
    }
  }
  return rep;
}

}  // namespace benchgate::engine
