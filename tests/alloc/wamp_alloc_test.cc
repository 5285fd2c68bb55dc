// goal 3 for WAMP (issue 19): once warmed up, RPC calls (answered by the router's bench.echo,
// and by the worker's own callee session) and pub/sub events allocate nothing,
// on the router's WAMP thread and on the worker's engine threads, for every serializer over
// both transports. The worker's engine drives the bundled router's WAMP server in-process;
// the calls are attributed by thread (the router's thread is the one WampServer::start
// started, the worker's those of EngineUnderTest), and counted over one pause for both.
#include <gtest/gtest.h>

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
};

std::string case_name(const WampCase& c) {
  const char* kind = c.kind == W::Kind::kPubSub ? "pubsub" : c.worker_callee ? "rpc_callee" : "rpc";
  const char* transport = c.transport == W::Transport::kRawSocket ? "rawsocket" : "websocket";
  const char* serializer = c.serializer == W::Serializer::kJson      ? "json"
                           : c.serializer == W::Serializer::kMsgpack ? "msgpack"
                                                                     : "cbor";
  return std::string(kind) + "_" + transport + "_" + serializer;
}

class AllocWamp : public ::testing::TestWithParam<WampCase> {};

TEST_P(AllocWamp, CallsAndEventsAllocateNothingOnEitherSideInSteadyState) {
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
  EXPECT_EQ(m.allocations_a, 0u) << "router";
  EXPECT_EQ(m.allocations_b, 0u) << "worker";
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
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Combos, AllocWamp, ::testing::ValuesIn(all_cases()),
                         [](const auto& param_info) { return case_name(param_info.param); });

}  // namespace
}  // namespace benchgate::alloc_test
