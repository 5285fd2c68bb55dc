#include "orchestrator/workers/worker_pool.h"

#include <thread>

#include "orchestrator/app/interrupt.h"
#include "orchestrator/grpc/channel.h"

namespace benchgate::workers {

using namespace std::chrono_literals;

DescribeAnswer ask_describe(v1::Worker::Stub& stub, const std::string& name,
                            std::chrono::steady_clock::time_point deadline) {
  std::string last = "no answer";
  while (std::chrono::steady_clock::now() < deadline && !app::interrupted()) {
    // Not wait_for_ready: such a call waits out its timeout while the channel cannot connect
    // and then says only DEADLINE_EXCEEDED; a plain call fails with the connection's own error
    // ("Connection refused"), which is what the message must name. The channel still
    // reconnects on its own backoff, so asking again every few milliseconds costs nothing.
    auto context = grpcutil::context_with_timeout(500ms);
    v1::DescribeResponse response;
    auto status = stub.Describe(context.get(), v1::DescribeRequest{}, &response);
    if (status.ok()) return {std::move(response)};
    last = grpcutil::describe(status);
    // Asking again cannot change the answer: fail now, naming the fix.
    if (status.error_code() == grpc::StatusCode::UNAUTHENTICATED ||
        status.error_code() == grpc::StatusCode::PERMISSION_DENIED) {
      return {Error{name + " refused the orchestrator's call (" + last +
                    "); give the worker's token with --worker-token-file FILE"},
              true};
    }
    // A server that answers without serving the method (another service, another package
    // version, a typo in the service's name): it will not start serving it while we wait.
    if (status.error_code() == grpc::StatusCode::UNIMPLEMENTED) {
      return {Error{name + " does not serve benchgate.v1.Worker's Describe (" + last +
                    "): check that it registers the service benchgate.v1.Worker (package "
                    "benchgate.v1 of proto/benchgate/v1/worker.proto) with the method Describe"},
              true};
    }
    std::this_thread::sleep_for(20ms);
  }
  if (app::interrupted()) {
    return {Error{"interrupted while waiting for " + name + " to answer", ErrorKind::kInterrupted}};
  }
  return {Error{name + " did not answer Describe before its deadline: " + last}};
}

Expected<v1::DescribeResponse> describe_worker(v1::Worker::Stub& stub, const std::string& name,
                                               std::chrono::steady_clock::time_point deadline) {
  return ask_describe(stub, name, deadline).response;
}

}  // namespace benchgate::workers
