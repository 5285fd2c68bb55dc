// The worker's HTTP/2 load (worker/http2/) in steady state: once warmed up, requests allocate
// nothing on the engine's threads, h2c with one and with ten streams per connection, closed
// loop and open loop: neither our code (stream slots and the request's header fields made once
// per connection) nor nghttp2 (its stream objects, HPACK buffers and queued frames come from
// the thread's size-class pool handed to nghttp2_session_client_new3). The server is the
// bundled router in-process (h2c with prior knowledge); its threads are not counted.
//
// The pool allocates only when more of nghttp2's blocks are live at once than ever before on
// the thread. Closed loop every connection has all its streams in flight from the start, so
// warm-up reaches that peak and the measured requests allocate nothing. Open loop the streams in
// flight vary with the schedule and a connection may reach a new peak during the measurement:
// each stream in flight costs nghttp2 at most 3 blocks (its stream object, the queued HEADERS
// with its copy of the header fields, the frame it serializes), so the measurement allocates
// at most 3 x connections x streams, however many requests it runs.
#include <gtest/gtest.h>

#include <string>

#include "alloc_report.h"
#include "counting_allocator.h"
#include "engine_under_test.h"
#include "router/http/server.h"

namespace benchgate::alloc_test {
namespace {

constexpr uint64_t kWarmup = 2000;
constexpr uint64_t kMeasured = 10000;
constexpr uint64_t kConnections = 4;
constexpr uint64_t kBlocksPerStream = 3;

struct Http2Case {
  const char* name;
  uint32_t streams;
  double rate;  // 0: closed loop
};

class AllocWorkerHttp2 : public ::testing::TestWithParam<Http2Case> {};

TEST_P(AllocWorkerHttp2, RequestsAllocateNothingOnTheEngineThreadsInSteadyState) {
  auto started = router::http::HttpServer::start({});
  ASSERT_TRUE(started) << started.message();
  auto& server = **started;

  worker::WorkloadSpec spec;
  spec.name = "alloc";
  spec.protocol = "http2";
  spec.address = "127.0.0.1:" + std::to_string(server.endpoint().port());
  spec.connections = kConnections;
  spec.threads = 1;
  spec.http2.streams = GetParam().streams;
  spec.rate = GetParam().rate;
  spec.http.target = "/bench/hello";
  spec.http.expect_status = 200;
  EngineUnderTest engine;
  ASSERT_TRUE(engine.start(spec));

  const Measured m = measure_polled([&] { return server.snapshot().counters.total_requests(); },
                                    engine.threads(), kWarmup, kMeasured);
  engine.stop();
  server.stop();
  print_alloc_line(std::string("worker.http2 ") + GetParam().name, m.ops, m.allocations);
  ASSERT_GE(m.ops, kMeasured);
  if (GetParam().rate == 0) {
    EXPECT_EQ(m.allocations, 0u);
  } else {
    EXPECT_LE(m.allocations, kBlocksPerStream * kConnections * GetParam().streams);
  }
}

INSTANTIATE_TEST_SUITE_P(Loops, AllocWorkerHttp2,
                         ::testing::Values(Http2Case{"closed_loop_one_stream", 1, 0},
                                           Http2Case{"closed_loop_ten_streams", 10, 0},
                                           Http2Case{"open_loop_ten_streams", 10, 20000}),
                         [](const auto& param_info) { return std::string(param_info.param.name); });

}  // namespace
}  // namespace benchgate::alloc_test
