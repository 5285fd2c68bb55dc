// See server.h.
#include "worker/service/server.h"

#include <grpc/grpc.h>

#include "common/net/grpc_log.h"
#include "common/net/host_port.h"
#include "common/net/listen_failure.h"
#include "common/net/owner_only_socket.h"
#include "common/security/token.h"
#include "common/util/shown_text.h"
#include "worker/service/authentication.h"

namespace benchgate::worker {

Expected<WorkerServer> start_worker_server(const std::string& listen, const std::string& token,
                                           std::optional<adapters::Tool> adapter,
                                           Http1Io http1_io) {
  // HOST:PORT by the rule every benchgate address is split by (worker --listen checks it first;
  // this guards other callers): gRPC refuses "::1:0" or "a b:0" only as "could not listen".
  const bool unix_path = listen.starts_with("unix:");
  net::HostPortSplit split;
  if (!unix_path) {
    split = net::split_host_port(listen, net::kListenMinPort);
    if (!split.ok()) {
      return Error{"--listen '" + shown_text(listen) +
                   "' is not HOST:PORT or unix:PATH: " + split.reason};
    }
  } else if (auto missing = net::unix_address_without_path(listen)) {
    // "unix:" or "unix://": gRPC would bind an abstract socket any local user may connect to.
    return Error{"--listen: " + *missing};
  }
  // gRPC would take the socket from a server still listening at a unix:PATH.
  if (auto in_use = net::unix_socket_in_use(listen)) {
    return Error{"cannot listen on " + listen + ": " + *in_use};
  }
  WorkerServer out;
  out.service = std::make_unique<WorkerService>(std::move(adapter), http1_io);
  int port = 0;
  grpc::ServerBuilder builder;
  // gRPC sets SO_REUSEPORT by default, which would let a second worker share the port silently
  // and the orchestrator's --workers-at reach either one at random.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  builder.AddListeningPort(listen, grpc::InsecureServerCredentials(), &port);
  if (token.empty()) {
    builder.RegisterService(out.service.get());
  } else {
    out.authenticating = std::make_unique<AuthenticatingWorkerService>(*out.service, token);
    builder.RegisterService(out.authenticating.get());
  }
  net::silence_grpc_log();
  {
    // Owner-only on a unix:PATH, as the router's control socket and `serve`'s are.
    net::OwnerOnlySocketUmask owner_only(listen);
    out.server = builder.BuildAndStart();
  }
  net::grpc_errors_to_stderr("worker");
  if (!out.server || port == 0) {
    return Error{"cannot listen on " + listen + ": " + net::why_not_listening(listen)};
  }
  // A Unix socket is named as given: gRPC reports port 1 for one, not a port to name.
  out.address = unix_path ? listen : net::join_host_port(split.host, static_cast<uint16_t>(port));
  return out;
}

Expected<std::string> worker_token(const std::string& listen, const std::string& token_file,
                                   bool insecure_no_token) {
  if (!token_file.empty()) {
    auto token = security::read_token_file(token_file);
    if (!token) return Error{"--token-file: " + token.message()};
    return token;
  }
  // A unix:PATH is this machine's, and its socket is owner-only (start_worker_server): only this
  // user (and root) may connect, as with `orchestrator serve --listen unix:PATH`, which takes no
  // password there either. host_of finds no host in it, which no loopback check takes.
  if (insecure_no_token || listen.starts_with("unix:") ||
      security::is_loopback_host(security::host_of(listen))) {
    return std::string();
  }
  return Error{"--listen " + listen +
               " is reachable from other machines, and anyone who reaches a worker can "
               "make it send load anywhere: give --token-file FILE (a secret only the "
               "orchestrator's --worker-token-file shares, mode 0600), or listen on "
               "127.0.0.1, or pass --insecure-no-token on a network you trust completely"};
}

}  // namespace benchgate::worker
