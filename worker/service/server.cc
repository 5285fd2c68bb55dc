#include "worker/service/server.h"

namespace benchgate::worker {

Expected<WorkerServer> start_worker_server(const std::string& listen) {
  const size_t colon = listen.rfind(':');
  if (colon == std::string::npos || colon == 0) {
    return Error{"--listen '" + listen + "' is not HOST:PORT"};
  }
  WorkerServer out;
  out.service = std::make_unique<WorkerService>();
  int port = 0;
  grpc::ServerBuilder builder;
  builder.AddListeningPort(listen, grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(out.service.get());
  out.server = builder.BuildAndStart();
  if (!out.server || port == 0) return Error{"cannot listen on " + listen};
  out.address = listen.substr(0, colon) + ":" + std::to_string(port);
  return out;
}

}  // namespace benchgate::worker
