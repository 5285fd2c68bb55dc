// RouterControl RPCs -> HttpServer domain calls (see control_service.h).
#include "router/control/control_service.h"

#include "router/control/metrics_proto.h"

namespace benchgate::router::control {

ControlService::ControlService(RouterFacts facts, http::HttpServer& server,
                               std::function<void()> request_shutdown)
    : facts_(std::move(facts)), server_(server), request_shutdown_(std::move(request_shutdown)) {}

void ControlService::set_endpoint(const std::string& name, const std::string& address) {
  std::lock_guard lock(facts_mutex_);
  facts_.endpoints[name] = address;
}

grpc::Status ControlService::Health(grpc::ServerContext*, const benchgate::v1::HealthRequest*,
                                    benchgate::v1::HealthResponse* response) {
  std::lock_guard lock(facts_mutex_);
  response->set_name(facts_.name);
  response->set_version(facts_.version);
  for (const auto& [name, address] : facts_.endpoints) {
    (*response->mutable_endpoints())[name] = address;
  }
  response->set_threads(facts_.threads);
  return grpc::Status::OK;
}

grpc::Status ControlService::GetMetrics(grpc::ServerContext*,
                                        const benchgate::v1::GetMetricsRequest*,
                                        benchgate::v1::MetricsSnapshot* response) {
  metrics::Snapshot snapshot = server_.snapshot();
  if (wamp_ != nullptr) wamp_->add_metrics(snapshot);
  to_proto(snapshot, *response);
  return grpc::Status::OK;
}

grpc::Status ControlService::Reset(grpc::ServerContext*, const benchgate::v1::ResetRequest*,
                                   benchgate::v1::ResetResponse*) {
  server_.reset_metrics();
  if (wamp_ != nullptr) wamp_->reset_metrics();
  return grpc::Status::OK;
}

grpc::Status ControlService::Shutdown(grpc::ServerContext*, const benchgate::v1::ShutdownRequest*,
                                      benchgate::v1::ShutdownResponse*) {
  request_shutdown_();
  return grpc::Status::OK;
}

}  // namespace benchgate::router::control
