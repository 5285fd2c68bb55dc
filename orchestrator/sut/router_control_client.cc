#include "orchestrator/sut/router_control_client.h"

#include <map>
#include <thread>

#include "orchestrator/app/interrupt.h"
#include "orchestrator/grpc/channel.h"
#include "orchestrator/workers/result_checks.h"

namespace benchgate::sut {

using namespace std::chrono_literals;

// Every control call has a deadline, so a hung or frozen router cannot hang the orchestrator
// (README, "Failure behaviour").
constexpr auto kCallDeadline = 5s;
constexpr auto kShutdownDeadline = 2s;

std::string counter_key(const v1::Counter& counter) {
  std::map<std::string, std::string> sorted(counter.labels().begin(), counter.labels().end());
  std::string key = counter.name();
  if (sorted.empty()) return key;
  key += '{';
  bool first = true;
  for (const auto& [name, value] : sorted) {
    if (!first) key += ',';
    key += name + "=" + value;
    first = false;
  }
  return key + '}';
}

RouterControlClient::RouterControlClient(const std::string& address)
    : address_(address),
      stub_(v1::RouterControl::NewStub(grpcutil::make_control_channel(address))) {}

Expected<void> RouterControlClient::wait_healthy(std::chrono::steady_clock::time_point deadline) {
  std::string last = "no answer";
  while (std::chrono::steady_clock::now() < deadline && !app::interrupted()) {
    auto context = grpcutil::context_with_timeout(500ms);
    context->set_wait_for_ready(true);
    v1::HealthResponse response;
    auto status = stub_->Health(context.get(), v1::HealthRequest{}, &response);
    if (status.ok()) return {};
    last = grpcutil::describe(status);
    std::this_thread::sleep_for(20ms);
  }
  return Error{"router control endpoint " + address_ + " not healthy: " + last};
}

Expected<MetricsSnapshot> RouterControlClient::metrics() {
  auto context = grpcutil::context_with_timeout(kCallDeadline);
  v1::MetricsSnapshot response;
  auto status = stub_->GetMetrics(context.get(), v1::GetMetricsRequest{}, &response);
  if (!status.ok()) {
    return Error{"router metrics from " + address_ + ": " + grpcutil::describe(status)};
  }
  MetricsSnapshot snapshot;
  snapshot.has_counters = true;
  snapshot.has_requests = true;
  snapshot.has_resources = true;
  for (const auto& counter : response.counters()) {
    snapshot.counters[counter_key(counter)] = counter.value();
    if (counter.name() == "http_requests") snapshot.requests += counter.value();
  }
  snapshot.cpu_seconds = response.cpu_user_seconds() + response.cpu_system_seconds();
  snapshot.rss_bytes = response.rss_bytes();
  const auto& blob = response.handling().hdr_v2_compressed();
  if (!blob.empty()) {
    // In benchgate's layout, checked from the header before any count, as a worker's results
    // are: another layout's figures are not the router's handling time as reported.
    auto decoded = workers::decode_histogram(blob);
    if (!decoded) {
      return Error{"router metrics from " + address_ +
                   ": its handling histogram: " + decoded.message()};
    }
    snapshot.handling = std::move(decoded).value();
  }
  return snapshot;
}

Expected<void> RouterControlClient::reset() {
  auto context = grpcutil::context_with_timeout(kCallDeadline);
  v1::ResetResponse response;
  auto status = stub_->Reset(context.get(), v1::ResetRequest{}, &response);
  if (!status.ok()) return Error{"router reset: " + grpcutil::describe(status)};
  return {};
}

Expected<void> RouterControlClient::shutdown() {
  auto context = grpcutil::context_with_timeout(kShutdownDeadline);
  v1::ShutdownResponse response;
  auto status = stub_->Shutdown(context.get(), v1::ShutdownRequest{}, &response);
  if (!status.ok()) return Error{"router shutdown: " + grpcutil::describe(status)};
  return {};
}

}  // namespace benchgate::sut
