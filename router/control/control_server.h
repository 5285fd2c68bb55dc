// The gRPC server that hosts RouterControl (synchronous gRPC: control calls are rare).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <grpcpp/server.h>

#include "common/util/expected.h"

namespace grpc {
class Service;
}

namespace benchgate::router::control {

class ControlServer {
 public:
  // Listens on `address` ("HOST:PORT", port 0 picks one, or "unix:PATH") without TLS: control
  // endpoints listen on loopback by default (docs/ARCHITECTURE.md, "Control plane").
  static Expected<std::unique_ptr<ControlServer>> start(const std::string& address,
                                                        grpc::Service& service);
  ~ControlServer();

  // The TCP port listened on; 0 for a Unix socket.
  int port() const { return port_; }
  // Lets calls in flight finish (a Shutdown call sends its reply), then stops. Idempotent.
  void stop();

 private:
  ControlServer(std::unique_ptr<grpc::Server> server, int port);

  std::unique_ptr<grpc::Server> server_;
  int port_;
};

}  // namespace benchgate::router::control
