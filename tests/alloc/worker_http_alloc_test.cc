// goal 3 for the worker's HTTP/1.1 load (issue 19): once warmed up, requests allocate nothing
// on the engine's threads, closed loop (one request in flight, and pipelined) and open loop,
// with each way of waiting for answers (worker --http1-io: the default epoll, unsuffixed;
// asio and uring, suffixed).
// The server is the bundled router in-process; its threads are not counted.
#include <gtest/gtest.h>

#include <string>

#include "alloc_report.h"
#include "counting_allocator.h"
#include "engine_under_test.h"
#include "raw_http_peer.h"
#include "router/http/server.h"

namespace benchgate::alloc_test {
namespace {

constexpr uint64_t kWarmup = 2000;
constexpr uint64_t kMeasured = 10000;

struct HttpCase {
  const char* name;
  uint32_t in_flight;
  double rate;                                   // 0: closed loop
  worker::Http1Io io = worker::Http1Io::kEpoll;  // worker --http1-io; the default, epoll
};

class AllocWorkerHttp : public ::testing::TestWithParam<HttpCase> {};

TEST_P(AllocWorkerHttp, RequestsAllocateNothingOnTheEngineThreadsInSteadyState) {
  auto started = router::http::HttpServer::start({});
  ASSERT_TRUE(started) << started.message();
  auto& server = **started;

  worker::WorkloadSpec spec;
  spec.name = "alloc";
  spec.address = "127.0.0.1:" + std::to_string(server.endpoint().port());
  spec.connections = 4;
  spec.threads = 1;
  spec.in_flight = GetParam().in_flight;
  spec.rate = GetParam().rate;
  spec.http.target = "/bench/hello";
  spec.http.expect_status = 200;
  spec.http1_io = GetParam().io;
  EngineUnderTest engine;
  ASSERT_TRUE(engine.start(spec));

  const Measured m = measure_polled([&] { return server.snapshot().counters.total_requests(); },
                                    engine.threads(), kWarmup, kMeasured);
  engine.stop();
  server.stop();
  print_alloc_line(std::string("worker.http1 ") + GetParam().name, m.ops, m.allocations);
  ASSERT_GE(m.ops, kMeasured);
  EXPECT_EQ(m.allocations, 0u);
}

INSTANTIATE_TEST_SUITE_P(
    Loops, AllocWorkerHttp,
    ::testing::Values(HttpCase{"closed_loop", 1, 0}, HttpCase{"closed_loop_pipelined", 8, 0},
                      HttpCase{"open_loop", 1, 20000},
                      HttpCase{"closed_loop_asio", 1, 0, worker::Http1Io::kAsio},
                      HttpCase{"closed_loop_pipelined_asio", 8, 0, worker::Http1Io::kAsio},
                      HttpCase{"open_loop_asio", 1, 20000, worker::Http1Io::kAsio},
                      HttpCase{"closed_loop_uring", 1, 0, worker::Http1Io::kUring},
                      HttpCase{"closed_loop_pipelined_uring", 8, 0, worker::Http1Io::kUring},
                      HttpCase{"open_loop_uring", 1, 20000, worker::Http1Io::kUring}),
    [](const auto& param_info) { return std::string(param_info.param.name); });

// Open loop on an overloaded machine: a connection whose answers come later than its schedule
// throughout the warm-up never finds itself ahead, so never arms its timer; once the answers
// come quickly it catches up and waits for the next instant due, for the first time mid-window.
// That first wait allocates nothing either (the window armed the timer before it started).
// The server answers each request 1 ms late (the schedule wants one every 250 us) for 100
// answers, then at once.
class AllocWorkerHttpOpenLoopBehind : public ::testing::TestWithParam<worker::Http1Io> {};

TEST_P(AllocWorkerHttpOpenLoopBehind, AConnectionThatCatchesUpWithItsScheduleAllocatesNothing) {
  RawHttpPeer peer;
  peer.set_delay(std::chrono::milliseconds(1));
  worker::WorkloadSpec spec;
  spec.name = "alloc";
  spec.address = "127.0.0.1:" + std::to_string(peer.port());
  spec.connections = 1;
  spec.threads = 1;
  spec.in_flight = 1;
  spec.rate = 4000;
  spec.http.target = "/bench/hello";
  spec.http.expect_status = 200;
  spec.http1_io = GetParam();
  EngineUnderTest engine;
  ASSERT_TRUE(engine.start(spec));

  constexpr uint64_t kSlowAnswers = 100;
  constexpr uint64_t kAfter = 3000;
  const Measured m = measure_polled(
      [&] {
        // The answers turn quick where the measurement starts (the warm-up's end).
        if (peer.answered() >= kSlowAnswers) peer.set_delay(std::chrono::microseconds(0));
        return peer.answered();
      },
      engine.threads(), kSlowAnswers, kAfter);
  engine.stop();
  print_alloc_line("worker.http1 open_loop_caught_up", m.ops, m.allocations);
  ASSERT_GE(m.ops, kAfter);
  EXPECT_EQ(m.allocations, 0u);
}

INSTANTIATE_TEST_SUITE_P(Io, AllocWorkerHttpOpenLoopBehind,
                         ::testing::Values(worker::Http1Io::kEpoll, worker::Http1Io::kAsio,
                                           worker::Http1Io::kUring),
                         [](const auto& param_info) {
                           switch (param_info.param) {
                             case worker::Http1Io::kAsio:
                               return std::string("asio");
                             case worker::Http1Io::kUring:
                               return std::string("uring");
                             default:
                               return std::string("epoll");
                           }
                         });

}  // namespace
}  // namespace benchgate::alloc_test
