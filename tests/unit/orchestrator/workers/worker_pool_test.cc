// describe_worker against a real gRPC server that serves another service, not benchgate.v1.Worker:
// the answer, UNIMPLEMENTED, is final, so the call fails at once naming what to check instead of
// asking again until its deadline.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <chrono>
#include <memory>

#include "benchgate/v1/router_control.grpc.pb.h"
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
  auto described = describe_worker(*stub, "worker 0", std::chrono::steady_clock::now() + 20s);
  server->Shutdown();
  ASSERT_FALSE(described.ok());
  EXPECT_EQ(described.message(),
            "worker 0 does not serve benchgate.v1.Worker's Describe (UNIMPLEMENTED): check that it "
            "registers the service benchgate.v1.Worker "
            "(package benchgate.v1 of proto/benchgate/v1/worker.proto) with the method Describe");
  EXPECT_TRUE(is_final_answer(described.error()));
}

TEST(DescribeWorker, ATimeoutIsNoFinalAnswer) {
  EXPECT_FALSE(
      is_final_answer(Error{"worker 0 did not answer Describe before its deadline: "
                            "UNAVAILABLE: Connection refused"}));
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
