// Starts the gRPC server that hosts the Worker service.
#pragma once

#include <grpcpp/grpcpp.h>

#include <memory>
#include <optional>
#include <string>

#include "common/util/expected.h"
#include "worker/service/worker_service.h"

namespace benchgate::worker {

struct WorkerServer {
  std::unique_ptr<WorkerService> service;
  // With a token: the service gRPC serves, checking every call before `service` sees it.
  std::unique_ptr<grpc::Service> authenticating;
  std::unique_ptr<grpc::Server> server;
  // "HOST:PORT" with the port actually bound (listening on port 0 picks a free one), or the
  // "unix:PATH" listened on, as given.
  std::string address;
};

// `listen` is "HOST:PORT" or "unix:PATH"; plaintext, meant for loopback (docs/ARCHITECTURE.md,
// "Control plane"). A Unix socket is created owner-only (srwx------); one another server still
// listens on is refused, naming it, and one a stopped server left is replaced.
// A non-empty `token` makes every call require `authorization: Bearer <token>` metadata
// (authentication.h); the caller decides whether a network address needs one (main.cc).
// With `adapter`, every Run stream is run by that tool (worker/adapters/), not the engine.
// `http1_io`: how the engine's cleartext HTTP/1.1 connections wait for answers.
Expected<WorkerServer> start_worker_server(const std::string& listen, const std::string& token = {},
                                           std::optional<adapters::Tool> adapter = {},
                                           Http1Io http1_io = Http1Io::kEpoll);

// The token a worker listening on `listen` requires: the one in `token_file` (checked as
// security::read_token_file does), or none. Without a file, a loopback address or a unix:PATH
// (owner-only, so reached only by this machine's owner and root) needs none, and a network
// address is refused, naming the fix, unless `insecure_no_token` says so explicitly.
Expected<std::string> worker_token(const std::string& listen, const std::string& token_file,
                                   bool insecure_no_token);

}  // namespace benchgate::worker
