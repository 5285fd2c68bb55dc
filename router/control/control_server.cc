// Hosting RouterControl on a gRPC server (see control_server.h).
#include "router/control/control_server.h"

#include <chrono>

#include <grpc/grpc.h>
#include <grpcpp/security/server_credentials.h>
#include <grpcpp/server_builder.h>

#include "common/net/grpc_log.h"
#include "common/net/listen_failure.h"
#include "common/net/owner_only_socket.h"

namespace benchgate::router::control {
namespace {

// In-flight calls get this long to finish when the router stops. gRPC waits out the whole
// grace while any client still holds a connection open, even an idle one, so it is short:
// control calls take microseconds, and a Shutdown call's reply is already on its way.
constexpr auto kStopGrace = std::chrono::milliseconds(300);

}  // namespace

ControlServer::ControlServer(std::unique_ptr<grpc::Server> server, int port)
    : server_(std::move(server)), port_(port) {}

ControlServer::~ControlServer() { stop(); }

Expected<std::unique_ptr<ControlServer>> ControlServer::start(const std::string& address,
                                                              grpc::Service& service) {
  // gRPC would take the socket from a server still listening at a unix:PATH, another router.
  if (auto in_use = net::unix_socket_in_use(address)) {
    return Error{"cannot listen for control on " + address + ": " + *in_use};
  }
  int port = 0;
  grpc::ServerBuilder builder;
  // gRPC sets SO_REUSEPORT by default, which would let two routers share a port silently.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  builder.AddListeningPort(address, grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(&service);
  net::silence_grpc_log();
  // A Unix socket is created owner-only (srwx------): other local users cannot connect to it.
  const bool unix_socket = address.starts_with("unix:");
  std::unique_ptr<grpc::Server> server;
  {
    net::OwnerOnlySocketUmask owner_only(address);
    server = builder.BuildAndStart();
  }
  net::grpc_errors_to_stderr("router");
  // gRPC reports port 1 for a Unix socket it did bind, not a port; a failed bind leaves no server.
  if (!server || (port == 0 && !unix_socket)) {
    return Error{"cannot listen for control on " + address + ": " +
                 net::why_not_listening(address)};
  }
  return std::unique_ptr<ControlServer>(new ControlServer(std::move(server), port));
}

void ControlServer::stop() {
  if (!server_) return;
  server_->Shutdown(std::chrono::system_clock::now() + kStopGrace);
  server_->Wait();
  server_.reset();
}

}  // namespace benchgate::router::control
