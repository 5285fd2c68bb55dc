// `worker --adapter h2load|wrk` over real gRPC: the service runs the installed tool for a
// window against an in-process HTTP server on 127.0.0.1 and reports what the tool counted,
// lists what it could not measure, refuses what the tool cannot run, quotes a failing tool,
// and kills the tool when the stream is cancelled. Skipped where the tool is not installed.
// Also: the worker binary with an adapter whose tool is not on PATH exits 2 naming the tool.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <optional>
#include <thread>

#include <unistd.h>

#include "benchgate/v1/worker.grpc.pb.h"
#include "tests/unit/worker/test_http_server.h"
#include "tests/unit/worker/worker_service_test_support.h"
#include "worker/adapters/tool.h"
#include "worker/adapters/tool_runner.h"
#include "worker/service/server.h"

namespace benchgate::worker::adapters {
namespace {

using namespace std::chrono_literals;
using worker::testing::ended_by_worker;
using worker::testing::Reply;
using worker::testing::send_spec_and_read_ready;
using worker::testing::TestHttpServer;
using worker::testing::window_command;

class AdapterServiceTest
    : public worker::testing::InProcessWorkerTest<::testing::TestWithParam<ToolKind>> {
 protected:
  void SetUp() override {
    const char* path = std::getenv("PATH");
    auto tool = locate_tool(GetParam(), path ? path : "");
    if (!tool) GTEST_SKIP() << tool.message();
    tool_ = *tool;
    start_worker(tool_);
  }

  static v1::RunCommand spec_command(const std::string& address) {
    v1::RunCommand command;
    v1::WorkloadSpec* spec = command.mutable_spec();
    spec->set_name("adapter");
    spec->set_protocol("http1");
    spec->set_address(address);
    spec->set_connections(2);
    spec->set_threads(1);
    spec->set_in_flight(1);
    spec->set_connect_timeout_ns(2'000'000'000);
    spec->mutable_http()->set_method("GET");
    spec->mutable_http()->set_target("/bench/hello");
    spec->mutable_http()->set_expect_status(200);
    spec->mutable_http()->set_expect_body_bytes(12);
    return command;
  }

  Tool tool_;
};

TEST_P(AdapterServiceTest, DescribesItselfAsTheToolWithItsVersionProtocolsAndTheClosedLoop) {
  grpc::ClientContext context;
  v1::DescribeResponse response;
  ASSERT_TRUE(stub_->Describe(&context, {}, &response).ok());
  EXPECT_EQ(response.name(), tool_.name);
  EXPECT_EQ(response.version(), tool_.version);
  // The protocols the adapter runs (check_workload): h2load HTTP/1.1 and HTTP/2, wrk HTTP/1.1.
  const std::vector<std::string> protocols(response.protocols().begin(),
                                           response.protocols().end());
  const std::vector<std::string> expected = GetParam() == ToolKind::kH2load
                                                ? std::vector<std::string>{"http1", "http2"}
                                                : std::vector<std::string>{"http1"};
  EXPECT_EQ(protocols, expected);
  ASSERT_EQ(response.load_models_size(), 1);
  EXPECT_EQ(response.load_models(0), "closed");
}

TEST_P(AdapterServiceTest, OneWindowReportsTheToolsCountsAndListsWhatItCouldNotMeasure) {
  TestHttpServer http([](std::string_view) { return Reply{TestHttpServer::ok("hello world!")}; });
  grpc::ClientContext context;
  auto stream = stub_->Run(&context);
  v1::RunEvent event;
  ASSERT_NO_FATAL_FAILURE(send_spec_and_read_ready(*stream, spec_command(http.address()), event));
  EXPECT_EQ(event.ready().connections(), 2u);
  EXPECT_EQ(event.ready().threads(), 1u);

  ASSERT_TRUE(stream->Write(window_command(0, 1'000'000'000)));
  ASSERT_TRUE(stream->Read(&event));
  ASSERT_TRUE(event.has_result()) << event.DebugString();
  const v1::WindowResult& r = event.result();
  stream->WritesDone();
  const grpc::Status status = stream->Finish();
  EXPECT_TRUE(status.ok()) << status.error_message();

  EXPECT_EQ(r.window(), 0u);
  EXPECT_GT(r.operations(), 0u);
  EXPECT_EQ(r.successes(), r.operations());
  EXPECT_TRUE(r.errors().empty());
  // The tool counts completed answers; what it still had in flight when its duration ended
  // was answered by the server but dropped by the tool (at most one per connection here).
  EXPECT_GE(http.replies(), r.operations());
  EXPECT_LE(http.replies(), r.operations() + 2);
  // "HTTP/1.1 200 OK\r\nContent-Length: 12\r\n\r\nhello world!" is 51 bytes; the tool may
  // have read part of an answer it then dropped.
  EXPECT_GE(r.bytes_received(), r.operations() * 51);
  EXPECT_LE(r.bytes_received(), (r.operations() + 2) * 51);
  EXPECT_EQ(r.bytes_sent(), 0u);
  EXPECT_FALSE(r.has_latency());
  ASSERT_TRUE(r.has_tool_latency());
  EXPECT_EQ(r.tool_latency().tool(), tool_.label());
  EXPECT_TRUE(r.tool_latency().has_min_ns());
  EXPECT_TRUE(r.tool_latency().has_mean_ns());
  EXPECT_TRUE(r.tool_latency().has_max_ns());
  EXPECT_LE(r.tool_latency().min_ns(), r.tool_latency().max_ns());
  if (GetParam() == ToolKind::kWrk) {
    EXPECT_EQ(r.tool_latency().percentiles_ns().size(), 5u);
    EXPECT_TRUE(r.tool_latency().percentiles_ns().contains("99"));
  } else {
    EXPECT_TRUE(r.tool_latency().percentiles_ns().empty());
  }
  EXPECT_GT(r.cpu_user_ns() + r.cpu_system_ns(), 0);
  EXPECT_GE(r.wall_ns(), 1'000'000'000);
  EXPECT_EQ(r.threads(), 1u);
  EXPECT_EQ(r.first_send_unix_ns(), 0);
  const std::vector<std::string> not_measured(r.not_measured().begin(), r.not_measured().end());
  for (const char* name : {"bytes_sent", "data_window", "latency", "errors.length"}) {
    EXPECT_NE(std::find(not_measured.begin(), not_measured.end(), name), not_measured.end())
        << name;
  }
  EXPECT_EQ(std::find(not_measured.begin(), not_measured.end(), "bytes_received"),
            not_measured.end());
}

TEST_P(AdapterServiceTest, RefusesTheOpenLoopWithInvalidArgument) {
  grpc::ClientContext context;
  auto stream = stub_->Run(&context);
  v1::RunCommand command = spec_command("127.0.0.1:1");
  command.mutable_spec()->set_rate(100);
  stream->Write(command);
  stream->WritesDone();
  const grpc::Status status = stream->Finish();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(status.error_message().find("open loop"), std::string::npos) << status.error_message();
}

TEST_P(AdapterServiceTest, AnUnreachableTargetEndsTheStreamUnavailableBeforeReady) {
  grpc::ClientContext context;
  auto stream = stub_->Run(&context);
  stream->Write(spec_command("127.0.0.1:1"));
  v1::RunEvent event;
  EXPECT_FALSE(stream->Read(&event));
  const grpc::Status status = stream->Finish();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_NE(status.error_message().find("cannot connect to 127.0.0.1:1"), std::string::npos)
      << status.error_message();
  EXPECT_TRUE(ended_by_worker(context));  // as the bundled engine marks it
}

TEST_P(AdapterServiceTest, CancellingTheStreamMidWindowKillsTheTool) {
  TestHttpServer http([](std::string_view) { return Reply{TestHttpServer::ok("hello world!")}; });
  grpc::ClientContext context;
  auto stream = stub_->Run(&context);
  v1::RunEvent event;
  ASSERT_NO_FATAL_FAILURE(send_spec_and_read_ready(*stream, spec_command(http.address()), event));
  ASSERT_TRUE(stream->Write(window_command(0, 60'000'000'000)));
  // Bounded: the load must begin within 20 s.
  for (auto until = std::chrono::steady_clock::now() + 20s;
       http.requests() == 0 && std::chrono::steady_clock::now() < until;) {
    std::this_thread::sleep_for(10ms);
  }
  ASSERT_GT(http.requests(), 0u);
  context.TryCancel();
  stream->Finish();
  // Bounded: the requests must stop growing within 20 s (the tool was asked for 60 s).
  bool stopped = false;
  for (auto until = std::chrono::steady_clock::now() + 20s;
       !stopped && std::chrono::steady_clock::now() < until;) {
    const uint64_t before = http.requests();
    std::this_thread::sleep_for(300ms);
    stopped = http.requests() == before;
  }
  EXPECT_TRUE(stopped);
}

INSTANTIATE_TEST_SUITE_P(Tools, AdapterServiceTest,
                         ::testing::Values(ToolKind::kH2load, ToolKind::kWrk), [](const auto& p) {
                           return p.param == ToolKind::kH2load ? std::string("h2load")
                                                               : std::string("wrk");
                         });

class WrkAdapterTest : public AdapterServiceTest {};

TEST_P(WrkAdapterTest, RefusesAWindowThatIsNotWholeSeconds) {
  TestHttpServer http([](std::string_view) { return Reply{TestHttpServer::ok("hello world!")}; });
  grpc::ClientContext context;
  auto stream = stub_->Run(&context);
  v1::RunEvent event;
  ASSERT_NO_FATAL_FAILURE(send_spec_and_read_ready(*stream, spec_command(http.address()), event));
  stream->Write(window_command(0, 500'000'000));
  EXPECT_FALSE(stream->Read(&event));
  const grpc::Status status = stream->Finish();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(status.error_message().find("wrk -d takes whole seconds"), std::string::npos)
      << status.error_message();
}

TEST_P(WrkAdapterTest, AToolThatFailsEndsTheStreamQuotingItsLastStderrLine) {
  grpc::ClientContext context;
  auto stream = stub_->Run(&context);
  std::string address;
  {
    TestHttpServer http([](std::string_view) { return Reply{TestHttpServer::ok("x")}; });
    address = http.address();
    v1::RunEvent event;
    ASSERT_NO_FATAL_FAILURE(send_spec_and_read_ready(*stream, spec_command(address), event));
  }  // the server is gone: wrk's start-up connect fails and it exits 1
  stream->Write(window_command(0, 1'000'000'000));
  v1::RunEvent event;
  EXPECT_FALSE(stream->Read(&event));
  const grpc::Status status = stream->Finish();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_NE(
      status.error_message().find("wrk exited with status 1: unable to connect to " + address),
      std::string::npos)
      << status.error_message();
  EXPECT_TRUE(ended_by_worker(context));
}

INSTANTIATE_TEST_SUITE_P(Wrk, WrkAdapterTest, ::testing::Values(ToolKind::kWrk),
                         [](const auto&) { return std::string("wrk"); });

TEST(WorkerBinary, WithAnAdapterWhoseToolIsNotOnPathExits2NamingTheTool) {
  char empty_dir[] = "/tmp/benchgate-adapter-path-XXXXXX";
  ASSERT_NE(::mkdtemp(empty_dir), nullptr);
  const char* saved = std::getenv("PATH");
  const std::string old_path = saved ? saved : "";
  for (const char* name : {"h2load", "wrk"}) {
    ::setenv("PATH", empty_dir, 1);  // the worker inherits it
    auto run = run_tool({BENCHGATE_WORKER_BIN, "--adapter", name, "--listen", "127.0.0.1:0"},
                        std::chrono::steady_clock::now() + 30s, {});
    ::setenv("PATH", old_path.c_str(), 1);
    ASSERT_TRUE(run.ok()) << run.message();
    EXPECT_EQ(run->exit_code, 2) << run->err;
    EXPECT_EQ(run->out, "");  // no READY line
    EXPECT_NE(run->err.find(std::string(name) + " is not installed"), std::string::npos)
        << run->err;
  }
  ::rmdir(empty_dir);
}

}  // namespace
}  // namespace benchgate::worker::adapters
