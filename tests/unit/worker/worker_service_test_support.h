// What the tests of the worker's gRPC service share (worker_service_test.cc, the engine's;
// adapter_service_test.cc, the tools'): the service started in-process on 127.0.0.1, on a port
// the kernel picks, with a stub for it and shut down when the test ends; a Window command; a
// Run stream begun with its spec and the worker's Ready read; whether a finished stream's
// status was marked as the worker's own.
#pragma once

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <utility>

#include "benchgate/v1/worker.grpc.pb.h"
#include "common/workload/run_stream_end.h"
#include "worker/service/server.h"

namespace benchgate::worker::testing {

// A fixture whose tests talk to a worker service of their own: start_worker() (in SetUp), then
// stub_. Base is ::testing::Test or a ::testing::TestWithParam.
template <class Base>
class InProcessWorkerTest : public Base {
 protected:
  // Starts the service; with `adapter`, that tool runs every Run stream. The test fails where
  // the service does not start.
  void start_worker(std::optional<adapters::Tool> adapter = {}) {
    auto started = start_worker_server("127.0.0.1:0", "", std::move(adapter));
    ASSERT_TRUE(started.ok()) << started.message();
    server_ = std::move(*started);
    stub_ = v1::Worker::NewStub(
        grpc::CreateChannel(server_.address, grpc::InsecureChannelCredentials()));
  }
  void TearDown() override {
    if (server_.server) server_.server->Shutdown();
  }

  WorkerServer server_;
  std::unique_ptr<v1::Worker::Stub> stub_;
};

// A measured Window command.
inline v1::RunCommand window_command(uint32_t index, int64_t duration_ns) {
  v1::RunCommand command;
  command.mutable_window()->set_index(index);
  command.mutable_window()->set_measured(true);
  command.mutable_window()->set_duration_ns(duration_ns);
  return command;
}

// Writes `spec`, a Run stream's first command, and reads the worker's answer into `event`: its
// Ready, or the test fails.
template <class Stream>
void send_spec_and_read_ready(Stream& stream, const v1::RunCommand& spec, v1::RunEvent& event) {
  ASSERT_TRUE(stream.Write(spec));
  ASSERT_TRUE(stream.Read(&event));
  ASSERT_TRUE(event.has_ready()) << event.DebugString();
}

// After Finish: whether the worker marked the stream's status as one it chose itself
// (common/workload/run_stream_end.h).
inline bool ended_by_worker(const grpc::ClientContext& context) {
  const auto& trailing = context.GetServerTrailingMetadata();
  const auto mark = trailing.find(run_stream::kEndedByWorkerKey);
  return mark != trailing.end() && mark->second == run_stream::kEndedByWorkerValue;
}

}  // namespace benchgate::worker::testing
