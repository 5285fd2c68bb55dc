#include "orchestrator/engine/window_merge.h"

#include <algorithm>
#include <limits>

namespace benchgate::engine {
namespace {

Expected<HdrHistogram> decode(const v1::Histogram& histogram, size_t worker) {
  const auto& blob = histogram.hdr_v2_compressed();
  auto decoded =
      HdrHistogram::decode(std::span(reinterpret_cast<const uint8_t*>(blob.data()), blob.size()));
  if (!decoded) {
    return Error{"worker " + std::to_string(worker) +
                 " sent a malformed result: an unreadable histogram: " + decoded.message()};
  }
  return decoded;
}

}  // namespace

Expected<results::Repetition> merge_window(const std::vector<v1::WindowResult>& parts,
                                           uint32_t index, int64_t start_unix_ns,
                                           int64_t duration_ns) {
  results::Repetition rep;
  rep.index = index;
  rep.start_unix_ns = start_unix_ns;
  rep.duration_ns = duration_ns;
  int64_t first_send = std::numeric_limits<int64_t>::max();
  int64_t last_receive = 0;
  for (size_t w = 0; w < parts.size(); ++w) {
    const auto& part = parts[w];
    rep.operations += part.operations();
    rep.successes += part.successes();
    for (const auto& [kind, count] : part.errors()) {
      if (count) rep.errors[kind] += count;
    }
    rep.bytes_sent += part.bytes_sent();
    rep.bytes_received += part.bytes_received();
    rep.late_sends += part.late_sends();
    rep.unsent += part.unsent();
    rep.events_expected += part.events_expected();
    rep.events_delivered += part.events_delivered();
    if (part.operations() > 0) {
      first_send = std::min(first_send, part.first_send_unix_ns());
      last_receive = std::max(last_receive, part.last_receive_unix_ns());
    }
    int64_t samples = 0;
    if (part.has_latency() && !part.latency().hdr_v2_compressed().empty()) {
      auto latency = decode(part.latency(), w);
      if (!latency) return latency.error();
      samples = latency->total_count();
      rep.latency.add(*latency);
    }
    // Each worker's result must hold itself together, so a broken one is named.
    if (samples != static_cast<int64_t>(part.successes())) {
      return Error{"worker " + std::to_string(w) +
                   " sent a malformed result: " + std::to_string(part.successes()) +
                   " successful operations but " + std::to_string(samples) + " latency samples"};
    }
    if (part.has_service_time() && !part.service_time().hdr_v2_compressed().empty()) {
      auto service = decode(part.service_time(), w);
      if (!service) return service.error();
      if (!rep.service_time) rep.service_time.emplace();
      rep.service_time->add(*service);
    }
    const double cpu_ns = static_cast<double>(part.cpu_user_ns() + part.cpu_system_ns());
    rep.worker_cpu_seconds += cpu_ns / 1e9;
    if (part.wall_ns() > 0 && part.threads() > 0) {
      const double utilization =
          cpu_ns / (static_cast<double>(part.wall_ns()) * static_cast<double>(part.threads()));
      rep.worker_cpu_utilization = std::max(rep.worker_cpu_utilization, utilization);
    }
  }
  if (last_receive > first_send) rep.data_window_ns = last_receive - first_send;
  if (rep.worker_cpu_utilization >= kSaturationThreshold) rep.flags.push_back("worker_saturated");
  return rep;
}

}  // namespace benchgate::engine
