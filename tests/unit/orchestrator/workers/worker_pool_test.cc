// describe_worker against a real gRPC server that serves another service, not benchgate.v1.Worker:
// the answer, UNIMPLEMENTED, is final, so the call fails at once naming what to check instead of
// asking again until its deadline.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <chrono>
#include <memory>

#include "benchgate/v1/router_control.grpc.pb.h"
#include "benchgate/v1/worker.grpc.pb.h"
#include "orchestrator/grpc/channel.h"
#include "orchestrator/workers/worker_pool.h"

namespace benchgate::workers {
namespace {

using namespace std::chrono_literals;

TEST(DescribeWorker, AServerWithoutTheServiceIsAFinalAnswerNamingWhatToCheck) {
  // Another service of the project (as a worker built from another .proto would serve one).
  v1::RouterControl::Service other;
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(&other);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  ASSERT_TRUE(server);
  ASSERT_GT(port, 0);
  auto stub =
      v1::Worker::NewStub(grpcutil::make_worker_channel("127.0.0.1:" + std::to_string(port), ""));
  // Asking until the deadline would end in "did not answer Describe before its deadline".
  DescribeAnswer answer = ask_describe(*stub, "worker 0", std::chrono::steady_clock::now() + 20s);
  server->Shutdown();
  const auto& described = answer.response;
  ASSERT_FALSE(described.ok());
  EXPECT_EQ(described.message(),
            "worker 0 does not serve benchgate.v1.Worker's Describe (UNIMPLEMENTED): check that it "
            "registers the service benchgate.v1.Worker "
            "(package benchgate.v1 of proto/benchgate/v1/worker.proto) with the method Describe");
  EXPECT_TRUE(answer.final);
}

// A worker that is not ready yet answers what it likes: its status message, whatever it says,
// is no final answer (only the status code, UNAUTHENTICATED, PERMISSION_DENIED or
// UNIMPLEMENTED, makes one), so the wait for it goes on to its deadline.
class NotReadyYet : public v1::Worker::Service {
  grpc::Status Describe(grpc::ServerContext*, const v1::DescribeRequest*,
                        v1::DescribeResponse*) override {
    return {grpc::StatusCode::UNAVAILABLE,
            "worker 0 refused the orchestrator's call (and does not serve benchgate.v1.Worker's "
            "Describe ("};
  }
};

TEST(DescribeWorker, APeersMessageThatReadsLikeAFinalAnswerIsNone) {
  NotReadyYet worker;
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(&worker);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  ASSERT_TRUE(server);
  auto stub =
      v1::Worker::NewStub(grpcutil::make_worker_channel("127.0.0.1:" + std::to_string(port), ""));
  DescribeAnswer answer = ask_describe(*stub, "worker 0", std::chrono::steady_clock::now() + 300ms);
  server->Shutdown();
  const auto& described = answer.response;
  ASSERT_FALSE(described.ok());
  EXPECT_EQ(described.message().rfind("worker 0 did not answer Describe before its deadline: "
                                      "UNAVAILABLE: worker 0 refused",
                                      0),
            0u)
      << described.message();
  EXPECT_FALSE(answer.final);
}

// A peer's status message (a worker's, a router's) is its own text: quoted, it can neither forge
// a line of the terminal nor colour one, as every other text a worker sends is shown.
TEST(DescribeStatus, APeersMessageIsEscaped) {
  EXPECT_EQ(grpcutil::describe(
                grpc::Status(grpc::StatusCode::UNAVAILABLE, "down\x1b[31m\nerror: forged")),
            "UNAVAILABLE: down\\x1b[31m\\nerror: forged");
  EXPECT_EQ(grpcutil::describe(grpc::Status(grpc::StatusCode::UNAVAILABLE, "")), "UNAVAILABLE");
}

}  // namespace
}  // namespace benchgate::workers
