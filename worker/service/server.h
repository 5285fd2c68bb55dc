// Starts the gRPC server that hosts the Worker service.
#pragma once

#include <grpcpp/grpcpp.h>

#include <memory>
#include <string>

#include "common/util/expected.h"
#include "worker/service/worker_service.h"

namespace benchgate::worker {

struct WorkerServer {
  std::unique_ptr<WorkerService> service;
  std::unique_ptr<grpc::Server> server;
  // "HOST:PORT" with the port actually bound (listening on port 0 picks a free one).
  std::string address;
};

// `listen` is "HOST:PORT"; plaintext, meant for loopback (ARCHITECTURE.md, control plane).
Expected<WorkerServer> start_worker_server(const std::string& listen);

}  // namespace benchgate::worker
