// goal 3 for WAMP (issue 19): once warmed up, RPC calls (answered by the router's bench.echo,
// and by the worker's own callee session) and pub/sub events allocate nothing,
// on the router's WAMP thread and on the worker's engine threads, for every serializer over
// both transports. The worker's engine drives the bundled router's WAMP server in-process;
// the calls are attributed by thread (the router's thread is the one WampServer::start
// started, the worker's those of EngineUnderTest), and counted over one pause for both.
//
// The router meets it: CALL, YIELD and PUBLISH are read in place (router/wamp/message_view.h)
// and what it routes is written into buffers its thread keeps (router/wamp/routing_frames.h,
// frame_pool.h), its connections' queues keep their capacity and Asio's operations take their
// memory from the thread's pool (router/wamp/transport_connection.h). Its cases assert 0 per
// operation, and at most kNewPeakCalls allocation calls in the whole measurement: a new peak of
// messages in flight adds a buffer to the frame pool once (2 calls: the buffer and its
// storage). That holds on WebSocket too because its frame-counting stream hands Beast the
// io_context's own executor (router/wamp/websocket_frames.h): Beast posts a read it finds
// already buffered, and the type-erased executor would drop the handler's allocator (0.03 to
// 0.11 per callee call under load before).
//
// The worker meets it too, in every case (before: 8.1 to 27.8 per operation, from a document per
// message): RESULT, PUBLISHED, EVENT and INVOCATION are read in place by the same reader
// (common/serialization/value_view.h; worker/wamp/session.h's handle_view), an echoed payload is
// compared as the bytes the worker wrote it in (anything else goes to the document path, which
// compares values), the callee's YIELD is written with MessageWriter into a buffer the send
// queue swaps back, the RawSocket write gets a view of its buffer list, and the channels'
// reads and writes take their operations' memory from the thread's pool
// (common/util/pooled_handler.h). Its cases assert 0 per operation with the router's
// allowance: at most kNewPeakCalls allocation calls in the whole measurement, for a new peak
// that grows a pool or a queue once. docs/PERFORMANCE.md gives the figures, under "Heap
// allocations per operation and heap bytes per connection (tests/alloc)". Every run prints the
// figures beside the goal.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "alloc_report.h"
#include "counting_allocator.h"
#include "engine_under_test.h"
#include "router/wamp/wamp_server.h"

namespace benchgate::alloc_test {
namespace {

using W = worker::WampRequestSpec;
constexpr uint64_t kWarmup = 2000;
constexpr uint64_t kMeasured = 2000;

struct WampCase {
  W::Kind kind;
  W::Transport transport;
  W::Serializer serializer;
  bool worker_callee = false;  // RPC: the worker's callee session answers, not the router
  bool call_timeout = false;   // RPC: every CALL with Options.timeout (the dealer's deadlines)
};

std::string case_name(const WampCase& c) {
  const char* kind = c.kind == W::Kind::kPubSub ? "pubsub"
                     : c.call_timeout           ? "rpc_callee_timeout"
                     : c.worker_callee          ? "rpc_callee"
                                                : "rpc";
  const char* transport = c.transport == W::Transport::kRawSocket ? "rawsocket" : "websocket";
  const char* serializer = c.serializer == W::Serializer::kJson      ? "json"
                           : c.serializer == W::Serializer::kMsgpack ? "msgpack"
                                                                     : "cbor";
  return std::string(kind) + "_" + transport + "_" + serializer;
}

// The allocation calls allowed on each side in a whole measurement at goal (see above).
constexpr uint64_t kNewPeakCalls = 32;

class AllocWamp : public ::testing::TestWithParam<WampCase> {};

TEST_P(AllocWamp, RouterAndWorkerAllocateNothingPerCallOrEvent) {
  const WampCase c = GetParam();
  const auto before = threads_now();
  auto started = router::wamp::WampServer::start({});
  ASSERT_TRUE(started) << started.message();
  auto& server = **started;
  const auto router_threads = started_between(before, threads_now());
  ASSERT_EQ(router_threads.size(), 1u);

  worker::WorkloadSpec spec;
  spec.name = "alloc";
  spec.protocol = c.kind == W::Kind::kRpc ? "wamp_rpc" : "wamp_pubsub";
  const bool raw = c.transport == W::Transport::kRawSocket;
  spec.address =
      "127.0.0.1:" + std::to_string(raw ? server.rawsocket_port() : server.websocket_port());
  spec.connections = 2;
  spec.threads = 1;
  spec.in_flight = 2;
  spec.wamp.kind = c.kind;
  spec.wamp.transport = c.transport;
  spec.wamp.serializer = c.serializer;
  spec.wamp.request_bytes = 256;
  spec.wamp.worker_callee = c.worker_callee;
  if (c.worker_callee) spec.wamp.procedure = "alloc.worker.echo";  // bench.echo is the router's
  if (c.call_timeout) spec.wamp.call_timeout_ms = 60'000;  // never reached: answered at once
  if (c.kind == W::Kind::kPubSub) {
    spec.wamp.publishers = 1;
    spec.wamp.subscribers = 2;
    spec.wamp.acknowledge = true;
    spec.connections = 3;
  }
  EngineUnderTest engine;
  ASSERT_TRUE(engine.start(spec));

  const bool rpc = c.kind == W::Kind::kRpc;
  const MeasuredPair m = measure_bracketed(
      [&] {
        router::metrics::Snapshot snapshot;
        server.add_metrics(snapshot);
        return rpc ? snapshot.wamp.calls_routed : snapshot.wamp.events_delivered;
      },
      router_threads, engine.threads(), kWarmup, kMeasured);
  engine.stop();
  server.stop();
  const std::string what = rpc ? "wamp_rpc " : "wamp_pubsub ";
  print_alloc_line("router." + what + case_name(c), m.ops, m.allocations_a);
  print_alloc_line("worker." + what + case_name(c), m.ops, m.allocations_b);
  ASSERT_GE(m.ops, kMeasured);
  std::printf("ALLOC| router goal=0 (met: at most %llu calls at a new peak in flight) %s\n",
              static_cast<unsigned long long>(kNewPeakCalls), case_name(c).c_str());
  EXPECT_LE(m.allocations_a, kNewPeakCalls) << "router";
  std::printf("ALLOC| worker goal=0 (met: at most %llu calls at a new peak in flight) %s\n",
              static_cast<unsigned long long>(kNewPeakCalls), case_name(c).c_str());
  EXPECT_LE(m.allocations_b, kNewPeakCalls) << "worker";
}

std::vector<WampCase> all_cases() {
  std::vector<WampCase> cases;
  for (W::Kind kind : {W::Kind::kRpc, W::Kind::kPubSub})
    for (W::Transport transport : {W::Transport::kRawSocket, W::Transport::kWebSocket})
      for (W::Serializer serializer :
           {W::Serializer::kJson, W::Serializer::kMsgpack, W::Serializer::kCbor})
        cases.push_back({kind, transport, serializer});
  for (W::Transport transport : {W::Transport::kRawSocket, W::Transport::kWebSocket})
    for (W::Serializer serializer :
         {W::Serializer::kJson, W::Serializer::kMsgpack, W::Serializer::kCbor})
      cases.push_back({W::Kind::kRpc, transport, serializer, true});
  // Calls with a timeout: the deadline of each is taken out when it is answered, and its node
  // comes back to the thread's pool (before: a std::multimap node from operator new per call,
  // never freed until the deadline passed).
  cases.push_back({W::Kind::kRpc, W::Transport::kRawSocket, W::Serializer::kCbor, true, true});
  cases.push_back({W::Kind::kRpc, W::Transport::kWebSocket, W::Serializer::kJson, true, true});
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Combos, AllocWamp, ::testing::ValuesIn(all_cases()),
                         [](const auto& param_info) { return case_name(param_info.param); });

}  // namespace
}  // namespace benchgate::alloc_test
