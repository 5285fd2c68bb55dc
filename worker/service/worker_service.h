// The benchgate.v1.Worker gRPC service. It translates protobuf to domain types, checks the
// Run stream's state machine (spec first, then windows) and hands the work to the Engine.
#pragma once

#include <grpcpp/grpcpp.h>

#include <optional>

#include "benchgate/v1/worker.grpc.pb.h"
#include "worker/adapters/tool.h"
#include "worker/engine/workload.h"

namespace benchgate::worker {

class WorkerService final : public v1::Worker::Service {
 public:
  // Without `adapter` the bundled engine runs the windows; with it, that tool does
  // (worker/adapters/adapter_stream.h). `http1_io` goes into every workload it runs
  // (worker --http1-io).
  explicit WorkerService(std::optional<adapters::Tool> adapter = {},
                         Http1Io http1_io = Http1Io::kEpoll)
      : adapter_(std::move(adapter)), http1_io_(http1_io) {}

  grpc::Status Describe(grpc::ServerContext* context, const v1::DescribeRequest* request,
                        v1::DescribeResponse* response) override;
  grpc::Status Run(grpc::ServerContext* context,
                   grpc::ServerReaderWriter<v1::RunEvent, v1::RunCommand>* stream) override;

 private:
  // Run's work; Run marks a non-OK status it returns as the worker's own
  // (common/workload/run_stream_end.h).
  grpc::Status run_stream(grpc::ServerContext* context,
                          grpc::ServerReaderWriter<v1::RunEvent, v1::RunCommand>* stream);

  std::optional<adapters::Tool> adapter_;
  Http1Io http1_io_;
};

}  // namespace benchgate::worker
