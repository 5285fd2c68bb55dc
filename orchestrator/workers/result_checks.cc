#include "orchestrator/workers/result_checks.h"

#include <span>

#include "common/histogram/hdr_histogram.h"

namespace benchgate::workers {
namespace {

// Clocks of one host agree, but the worker may start its window a little before the shared
// instant (it rounds, or its sleep wakes early) and a result travels after the drain.
constexpr int64_t kEarlyStartNs = 50'000'000;
constexpr int64_t kLateResultNs = 2'000'000'000;

std::string ns(int64_t value) { return std::to_string(value) + " ns"; }

}  // namespace

std::string check_histogram(const v1::Histogram& histogram, int64_t& count) {
  count = 0;
  const std::string& blob = histogram.hdr_v2_compressed();
  if (blob.empty()) return {};
  auto decoded =
      HdrHistogram::decode(std::span(reinterpret_cast<const uint8_t*>(blob.data()), blob.size()));
  if (!decoded) return decoded.message();
  if (!decoded->same_configuration(HdrHistogram())) {
    return "layout is " + std::to_string(decoded->lowest()) + ".." +
           std::to_string(decoded->highest()) + " ns with " +
           std::to_string(decoded->significant_digits()) +
           " digits, not 1..3600000000000 ns with 3 digits";
  }
  count = decoded->total_count();
  return {};
}

std::vector<RuleOutcome> check_window_result(const v1::WindowResult& result,
                                             const WindowFacts& window) {
  std::vector<RuleOutcome> out;
  const std::string w = "window " + std::to_string(window.index) + ": ";
  out.push_back({w + "result carries the window's index", result.window() == window.index,
                 "got " + std::to_string(result.window())});
  out.push_back({w + "operations > 0 and successes <= operations",
                 result.operations() > 0 && result.successes() <= result.operations(),
                 std::to_string(result.operations()) + " operations, " +
                     std::to_string(result.successes()) + " successes"});

  int64_t count = 0;
  std::string problem = check_histogram(result.latency(), count);
  out.push_back(
      {w + "latency histogram is HdrHistogram V2 (1 ns..1 h, 3 digits)",
       problem.empty() && !result.latency().hdr_v2_compressed().empty(),
       problem.empty()
           ? (result.latency().hdr_v2_compressed().empty()
                  ? "empty, although there were successes"
                  : std::to_string(result.latency().hdr_v2_compressed().size()) + " bytes")
           : problem});
  out.push_back({w + "latency count equals successes",
                 problem.empty() && count == static_cast<int64_t>(result.successes()),
                 "histogram holds " + std::to_string(count) + ", successes " +
                     std::to_string(result.successes())});

  const int64_t first = result.first_send_unix_ns();
  const int64_t last = result.last_receive_unix_ns();
  const int64_t earliest = window.start_at_unix_ns - kEarlyStartNs;
  const int64_t latest =
      window.start_at_unix_ns + window.duration_ns + window.drain_timeout_ns + kLateResultNs;
  const bool window_ok = first >= earliest &&
                         first <= window.start_at_unix_ns + window.duration_ns && last >= first &&
                         last <= latest;
  out.push_back({w + "data window lies inside the window and its drain", window_ok,
                 "first send " + ns(first - window.start_at_unix_ns) + ", last receive " +
                     ns(last - window.start_at_unix_ns) + " after the start instant (window " +
                     ns(window.duration_ns) + ")"});

  const bool cpu_ok = result.cpu_user_ns() >= 0 && result.cpu_system_ns() >= 0 &&
                      result.cpu_user_ns() + result.cpu_system_ns() > 0 && result.wall_ns() > 0 &&
                      result.threads() >= 1;
  out.push_back({w + "CPU fields present (cpu_user_ns, cpu_system_ns, wall_ns, threads)", cpu_ok,
                 "user " + ns(result.cpu_user_ns()) + ", system " + ns(result.cpu_system_ns()) +
                     ", wall " + ns(result.wall_ns()) + ", threads " +
                     std::to_string(result.threads())});
  out.push_back({w + "bytes counted", result.bytes_sent() > 0 && result.bytes_received() > 0,
                 std::to_string(result.bytes_sent()) + " sent, " +
                     std::to_string(result.bytes_received()) + " received"});
  return out;
}

}  // namespace benchgate::workers
