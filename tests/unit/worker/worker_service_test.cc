// The benchgate.v1.Worker service over real gRPC (in-process server on 127.0.0.1, free
// port): Describe, the Run stream's state machine and its errors, one full window.
#include "worker/service/worker_service.h"

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include "benchgate/v1/worker.grpc.pb.h"
#include "common/histogram/hdr_histogram.h"
#include "tests/unit/worker/test_http_server.h"
#include "tests/unit/worker/worker_service_test_support.h"
#include "worker/service/server.h"

namespace benchgate::worker {
namespace {

using testing::ended_by_worker;
using testing::Reply;
using testing::send_spec_and_read_ready;
using testing::TestHttpServer;

class WorkerServiceTest : public testing::InProcessWorkerTest<::testing::Test> {
 protected:
  void SetUp() override { start_worker(); }

  static v1::RunCommand spec_command(const std::string& address) {
    v1::RunCommand command;
    v1::WorkloadSpec* spec = command.mutable_spec();
    spec->set_name("svc");
    spec->set_protocol("http1");
    spec->set_address(address);
    spec->set_connections(2);
    spec->set_threads(1);
    spec->set_in_flight(2);
    spec->set_drain_timeout_ns(2'000'000'000);
    spec->set_connect_timeout_ns(2'000'000'000);
    spec->mutable_http()->set_method("GET");
    spec->mutable_http()->set_target("/");
    spec->mutable_http()->set_expect_status(200);
    spec->mutable_http()->set_expect_body_bytes(-1);
    return command;
  }
};

TEST_F(WorkerServiceTest, DescribesItselfAsTheBenchgateHttpAndWampWorker) {
  grpc::ClientContext context;
  v1::DescribeResponse response;
  ASSERT_TRUE(stub_->Describe(&context, {}, &response).ok());
  EXPECT_EQ(response.name(), "benchgate-worker");
  EXPECT_FALSE(response.version().empty());
  ASSERT_EQ(response.protocols_size(), 5);
  EXPECT_EQ(response.protocols(0), "http1");
  EXPECT_EQ(response.protocols(1), "http2");
  EXPECT_EQ(response.protocols(2), "wamp_rpc");
  EXPECT_EQ(response.protocols(3), "wamp_pubsub");
  EXPECT_EQ(response.protocols(4), "wamp_transfer");
  ASSERT_EQ(response.load_models_size(), 2);
  EXPECT_EQ(response.load_models(0), "closed");
  EXPECT_EQ(response.load_models(1), "open");
}

TEST_F(WorkerServiceTest, RejectsAWampSpecWithAnUnknownSerializerNamingTheField) {
  grpc::ClientContext context;
  auto stream = stub_->Run(&context);
  v1::RunCommand command = spec_command("127.0.0.1:1");
  command.mutable_spec()->set_protocol("wamp_rpc");
  command.mutable_spec()->mutable_wamp()->set_kind("rpc");
  command.mutable_spec()->mutable_wamp()->set_serializer("ubjson");
  stream->Write(command);
  stream->WritesDone();
  const grpc::Status status = stream->Finish();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(status.error_message().find("wamp.serializer 'ubjson'"), std::string::npos)
      << status.error_message();
}

TEST_F(WorkerServiceTest, EndsAStreamThatDoesNotStartWithASpecWithInvalidArgument) {
  grpc::ClientContext context;
  auto stream = stub_->Run(&context);
  v1::RunCommand command;
  command.mutable_window()->set_duration_ns(1);
  stream->Write(command);
  stream->WritesDone();
  v1::RunEvent event;
  EXPECT_FALSE(stream->Read(&event));
  const grpc::Status status = stream->Finish();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(status.error_message().find("must be a WorkloadSpec"), std::string::npos);
}

TEST_F(WorkerServiceTest, RejectsAnInvalidSpecWithAMessageNamingTheField) {
  grpc::ClientContext context;
  auto stream = stub_->Run(&context);
  v1::RunCommand command = spec_command("127.0.0.1:1");
  command.mutable_spec()->set_connections(0);
  stream->Write(command);
  stream->WritesDone();
  const grpc::Status status = stream->Finish();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(status.error_message().find("connections must be at least 1"), std::string::npos);
  EXPECT_TRUE(ended_by_worker(context));  // a refusal is the worker's own
}

TEST_F(WorkerServiceTest, EndsWithUnavailableNamingTheAddressItCannotReach) {
  std::string address;
  {
    boost::asio::io_context io;
    boost::asio::ip::tcp::acceptor probe(io, {boost::asio::ip::make_address("127.0.0.1"), 0});
    address = "127.0.0.1:" + std::to_string(probe.local_endpoint().port());
  }
  grpc::ClientContext context;
  auto stream = stub_->Run(&context);
  stream->Write(spec_command(address));
  stream->WritesDone();
  const grpc::Status status = stream->Finish();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_NE(status.error_message().find(address), std::string::npos) << status.error_message();
  // Marked: the orchestrator need not wait for this live worker to die before reporting it.
  EXPECT_TRUE(ended_by_worker(context));
}

TEST_F(WorkerServiceTest, EndsAStreamThatSendsASecondSpecWithInvalidArgument) {
  TestHttpServer http([](std::string_view) { return Reply{TestHttpServer::ok("hi")}; });
  grpc::ClientContext context;
  auto stream = stub_->Run(&context);
  v1::RunEvent event;
  ASSERT_NO_FATAL_FAILURE(send_spec_and_read_ready(*stream, spec_command(http.address()), event));
  stream->Write(spec_command(http.address()));
  stream->WritesDone();
  while (stream->Read(&event)) {
  }
  const grpc::Status status = stream->Finish();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(status.error_message().find("only Window and ClockProbe commands"), std::string::npos)
      << status.error_message();
}

TEST_F(WorkerServiceTest, RunsAWindowAndReportsItsResult) {
  TestHttpServer http([](std::string_view) { return Reply{TestHttpServer::ok("hi")}; });
  grpc::ClientContext context;
  auto stream = stub_->Run(&context);
  v1::RunCommand spec = spec_command(http.address());
  spec.mutable_spec()->set_progress_interval_ns(20'000'000);
  v1::RunEvent event;
  ASSERT_NO_FATAL_FAILURE(send_spec_and_read_ready(*stream, spec, event));
  EXPECT_EQ(event.ready().connections(), 2u);
  EXPECT_EQ(event.ready().threads(), 1u);

  ASSERT_TRUE(stream->Write(testing::window_command(0, 100'000'000)));
  while (stream->Read(&event) && event.has_progress()) EXPECT_EQ(event.progress().window(), 0u);
  ASSERT_TRUE(event.has_result());
  const v1::WindowResult& result = event.result();
  EXPECT_GT(result.operations(), 0u);
  EXPECT_EQ(result.operations(), http.replies());
  EXPECT_EQ(result.successes(), result.operations());
  EXPECT_TRUE(result.errors().empty());
  EXPECT_EQ(result.threads(), 1u);
  EXPECT_FALSE(result.has_service_time());  // closed loop
  const std::string& encoded = result.latency().hdr_v2_compressed();
  auto latency =
      HdrHistogram::decode({reinterpret_cast<const uint8_t*>(encoded.data()), encoded.size()});
  ASSERT_TRUE(latency.ok()) << latency.message();
  EXPECT_EQ(static_cast<uint64_t>(latency->total_count()), result.successes());

  stream->WritesDone();
  EXPECT_FALSE(stream->Read(&event));
  EXPECT_TRUE(stream->Finish().ok());
  EXPECT_FALSE(ended_by_worker(context));  // only an error status is marked
}

TEST_F(WorkerServiceTest, StopsTheLoadWhenTheOrchestratorCancelsMidWindow) {
  TestHttpServer http([](std::string_view) { return Reply{TestHttpServer::ok("hi")}; });
  grpc::ClientContext context;
  auto stream = stub_->Run(&context);
  ASSERT_TRUE(stream->Write(spec_command(http.address())));
  v1::RunEvent event;
  ASSERT_TRUE(stream->Read(&event));
  v1::RunCommand window;
  window.mutable_window()->set_duration_ns(60'000'000'000);  // would run a minute
  ASSERT_TRUE(stream->Write(window));
  context.TryCancel();
  while (stream->Read(&event)) {
  }
  EXPECT_EQ(stream->Finish().error_code(), grpc::StatusCode::CANCELLED);
  // The client sees CANCELLED at once; the worker stops its load asynchronously. It must close
  // every connection (the deadline only guards against a worker that never does), and then no
  // more requests can arrive.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (http.open_connections() > 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_EQ(http.open_connections(), 0u);
  const uint64_t requests = http.requests();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(http.requests(), requests);
}

}  // namespace
}  // namespace benchgate::worker
