// Domain metrics -> protobuf (see metrics_proto.h).
#include "router/control/metrics_proto.h"

#include <string>

namespace benchgate::router::control {
namespace {

void add_counter(benchgate::v1::MetricsSnapshot& out, const char* name, uint64_t value) {
  benchgate::v1::Counter* counter = out.add_counters();
  counter->set_name(name);
  counter->set_value(value);
}

}  // namespace

void to_proto(const metrics::Snapshot& snapshot, benchgate::v1::MetricsSnapshot& out) {
  out.set_taken_at_unix_ns(snapshot.taken_at_unix_ns);
  const metrics::HttpCounters& counters = snapshot.counters;
  add_counter(out, "connections_accepted", counters.connections_accepted);
  add_counter(out, "bytes_received", counters.bytes_received);
  add_counter(out, "bytes_sent", counters.bytes_sent);
  add_counter(out, "http_parse_errors", counters.parse_errors);
  add_counter(out, "connections_timed_out", counters.timed_out);
  for (int r = 0; r < http::kRouteCount; ++r) {
    const auto route = static_cast<http::Route>(r);
    for (size_t s = 0; s < metrics::kStatuses.size(); ++s) {
      const uint64_t value = counters.requests[static_cast<size_t>(r)][s];
      if (value == 0) continue;
      benchgate::v1::Counter* counter = out.add_counters();
      counter->set_name("http_requests");
      (*counter->mutable_labels())["route"] = std::string(http::route_label(route));
      (*counter->mutable_labels())["status"] = std::to_string(metrics::kStatuses[s]);
      counter->set_value(value);
    }
  }
  (*out.mutable_gauges())["connections_open"] = snapshot.connections_open;
  const std::vector<uint8_t> encoded = snapshot.handling.encode_compressed();
  out.mutable_handling()->set_hdr_v2_compressed(encoded.data(), encoded.size());
  out.set_cpu_user_seconds(static_cast<double>(snapshot.cpu.user_ns) / 1e9);
  out.set_cpu_system_seconds(static_cast<double>(snapshot.cpu.system_ns) / 1e9);
  out.set_rss_bytes(snapshot.rss_bytes);
}

}  // namespace benchgate::router::control
