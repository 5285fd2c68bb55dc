#include "orchestrator/workers/worker_pool.h"

#include <thread>

#include "orchestrator/app/interrupt.h"
#include "orchestrator/grpc/channel.h"

namespace benchgate::workers {

using namespace std::chrono_literals;

Expected<v1::DescribeResponse> describe_worker(v1::Worker::Stub& stub, const std::string& name,
                                               std::chrono::steady_clock::time_point deadline) {
  std::string last = "no answer";
  while (std::chrono::steady_clock::now() < deadline && !app::interrupted()) {
    auto context = grpcutil::context_with_timeout(500ms);
    context->set_wait_for_ready(true);
    v1::DescribeResponse response;
    auto status = stub.Describe(context.get(), v1::DescribeRequest{}, &response);
    if (status.ok()) return response;
    last = grpcutil::describe(status);
    // Asking again cannot change the answer: fail now, naming the fix.
    if (status.error_code() == grpc::StatusCode::UNAUTHENTICATED ||
        status.error_code() == grpc::StatusCode::PERMISSION_DENIED) {
      return Error{name + " refused the orchestrator's call (" + last +
                   "); give the worker's token with --worker-token-file FILE"};
    }
    std::this_thread::sleep_for(20ms);
  }
  return Error{name + " did not answer Describe before its deadline: " + last};
}

}  // namespace benchgate::workers
