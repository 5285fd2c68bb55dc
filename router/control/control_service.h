// The RouterControl gRPC service. It only translates between protobuf and the domain APIs of
// the HTTP and WAMP servers (docs/CONTRIBUTING.md, rule 5); shutting the process down is the
// caller's callback.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>

#include "benchgate/v1/router_control.grpc.pb.h"
#include "router/http/server.h"
#include "router/wamp/wamp_server.h"

namespace benchgate::router::control {

// What Health reports.
struct RouterFacts {
  std::string name;
  std::string version;
  std::map<std::string, std::string> endpoints;  // "http" -> "127.0.0.1:PORT", ...
  uint32_t threads = 1;
};

class ControlService final : public benchgate::v1::RouterControl::Service {
 public:
  // `request_shutdown` must only signal: it runs inside the Shutdown call, which must still
  // be able to reply.
  ControlService(RouterFacts facts, http::HttpServer& server,
                 std::function<void()> request_shutdown);

  // The control endpoint is known only once the gRPC server listens.
  void set_endpoint(const std::string& name, const std::string& address);
  // Adds the WAMP router's metrics to GetMetrics and Reset; set before the control server
  // starts. Without it the WAMP counters read zero.
  void set_wamp(wamp::WampServer* wamp) { wamp_ = wamp; }

  grpc::Status Health(grpc::ServerContext* context, const benchgate::v1::HealthRequest* request,
                      benchgate::v1::HealthResponse* response) override;
  grpc::Status GetMetrics(grpc::ServerContext* context,
                          const benchgate::v1::GetMetricsRequest* request,
                          benchgate::v1::MetricsSnapshot* response) override;
  grpc::Status Reset(grpc::ServerContext* context, const benchgate::v1::ResetRequest* request,
                     benchgate::v1::ResetResponse* response) override;
  grpc::Status Shutdown(grpc::ServerContext* context, const benchgate::v1::ShutdownRequest* request,
                        benchgate::v1::ShutdownResponse* response) override;

 private:
  std::mutex facts_mutex_;
  RouterFacts facts_;
  http::HttpServer& server_;
  wamp::WampServer* wamp_ = nullptr;
  std::function<void()> request_shutdown_;
};

}  // namespace benchgate::router::control
