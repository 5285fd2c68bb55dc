// How a workload's totals are divided between workers, and what responses are expected.
#include "orchestrator/engine/load_split.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <tuple>
#include <vector>

#include "worker/engine/open_loop_schedule.h"

namespace benchgate::engine {
namespace {

scenario::Workload workload(uint32_t connections, uint32_t workers, uint32_t threads,
                            double rate = 0) {
  scenario::Workload w;
  w.connections = connections;
  w.workers = workers;
  w.threads = threads;
  w.rate = rate;
  return w;
}

TEST(LoadSplit, ConnectionsAddUpAndDifferByAtMostOne) {
  auto shares = split_load(workload(10, 3, 1));
  ASSERT_EQ(shares.size(), 3u);
  EXPECT_EQ(shares[0].connections, 4u);
  EXPECT_EQ(shares[1].connections, 3u);
  EXPECT_EQ(shares[2].connections, 3u);
}

TEST(LoadSplit, ThreadsNeverExceedTheWorkersConnections) {
  auto shares = split_load(workload(3, 2, 4));
  EXPECT_EQ(shares[0].threads, 2u);
  EXPECT_EQ(shares[1].threads, 1u);
}

TEST(LoadSplit, RateIsSharedInProportionToConnections) {
  auto shares = split_load(workload(4, 2, 1, 1000));
  EXPECT_DOUBLE_EQ(shares[0].rate + shares[1].rate, 1000);
  EXPECT_DOUBLE_EQ(shares[0].rate, 500);
}

// Every instant the open-loop schedules of all workers and all their threads make due in
// the first `requests_per_connection` rounds, from the specs the workers are sent (a
// worker's connections are spread over its threads by index, each keeping its schedule).
std::vector<int64_t> scheduled_instants(const scenario::Workload& w, uint64_t rounds) {
  std::vector<int64_t> instants;
  for (const WorkerShare& share : split_load(w)) {
    const v1::WorkloadSpec spec = worker_spec(w, share, "127.0.0.1:1", Expectation{});
    for (uint32_t c = 0; c < spec.connections(); ++c) {
      const worker::OpenLoopSchedule schedule(spec.rate(), spec.connections(), c,
                                              spec.schedule_first(), spec.schedule_connections());
      for (uint64_t k = 0; k < rounds; ++k) instants.push_back(schedule.due_offset_ns(k));
    }
  }
  std::sort(instants.begin(), instants.end());
  return instants;
}

// W workers used to send in bursts of W (connection i of every worker due at one instant);
// the schedule spans all workers and threads, so the whole workload's requests are evenly
// spaced at 1 / rate, also when the connections do not divide evenly.
TEST(LoadSplit, OpenLoopSchedulesOfAllWorkersInterleaveEvenly) {
  for (const auto& [connections, workers, threads] :
       std::vector<std::tuple<uint32_t, uint32_t, uint32_t>>{{8, 4, 2}, {10, 3, 2}, {7, 7, 1}}) {
    const auto w = workload(connections, workers, threads, 1000);  // every 1 ms in all
    const std::vector<int64_t> instants = scheduled_instants(w, 20);
    ASSERT_EQ(instants.size(), connections * 20u);
    for (size_t i = 0; i < instants.size(); ++i) {
      // Each instant is rounded to the nanosecond on its own.
      EXPECT_NEAR(static_cast<double>(instants[i]), static_cast<double>(i) * 1e6, 1.0)
          << connections << " connections, " << workers << " workers, instant " << i;
    }
  }
}

TEST(LoadSplit, EachWorkersConnectionsFollowThePreviousWorkersInTheSchedule) {
  const auto w = workload(10, 3, 1, 1000);
  const auto shares = split_load(w);
  EXPECT_EQ(shares[0].first_connection, 0u);
  EXPECT_EQ(shares[1].first_connection, 4u);
  EXPECT_EQ(shares[2].first_connection, 7u);
  const auto spec = worker_spec(w, shares[2], "127.0.0.1:1", Expectation{});
  EXPECT_EQ(spec.schedule_first(), 7u);
  EXPECT_EQ(spec.schedule_connections(), 10u);
  // One worker, or the closed loop: the fields keep their defaults (the worker alone).
  const auto alone = workload(10, 1, 1, 1000);
  EXPECT_EQ(worker_spec(alone, split_load(alone)[0], "127.0.0.1:1", {}).schedule_connections(), 0u);
  const auto closed = workload(10, 3, 1);
  EXPECT_EQ(worker_spec(closed, split_load(closed)[1], "127.0.0.1:1", {}).schedule_connections(),
            0u);
}

TEST(ExpectedResponse, BenchRoutesOfTheBundledRouterDefineTheBody) {
  scenario::Workload w;
  w.http.target = "/bench/hello";
  EXPECT_EQ(expected_response(w, true).body_bytes, 12);
  w.http.target = "/bench/bytes/65536";
  EXPECT_EQ(expected_response(w, true).body_bytes, 65536);
  w.http.target = "/bench/echo";
  w.http.method = "POST";
  w.http.request_bytes = 1024;
  auto echo = expected_response(w, true);
  EXPECT_EQ(echo.body_bytes, 1024);
  EXPECT_TRUE(echo.echo);
  w.http.target = "/bench/delay/5";
  EXPECT_EQ(expected_response(w, true).body_bytes, 0);
}

TEST(ExpectedResponse, OtherServersOnlyGetTheStatusChecked) {
  scenario::Workload w;
  w.http.target = "/bench/hello";
  auto expectation = expected_response(w, false);
  EXPECT_EQ(expectation.status, 200u);
  EXPECT_EQ(expectation.body_bytes, -1);
  EXPECT_FALSE(expectation.echo);
}

TEST(ExpectedResponse, ExplicitExpectationsWin) {
  scenario::Workload w;
  w.http.target = "/bench/hello";
  w.http.expect_status = 204;
  w.http.expect_body_bytes = 0;
  auto expectation = expected_response(w, true);
  EXPECT_EQ(expectation.status, 204u);
  EXPECT_EQ(expectation.body_bytes, 0);
}

TEST(WorkerSpec, CarriesTheShareAndTheRequest) {
  scenario::Workload w = workload(8, 2, 2, 0);
  w.in_flight = 4;
  w.http.method = "POST";
  w.http.target = "/bench/echo";
  w.http.request_bytes = 100;
  auto spec = worker_spec(w, {4, 2, 0}, "127.0.0.1:1234", {200, 100, true});
  EXPECT_EQ(spec.address(), "127.0.0.1:1234");
  EXPECT_EQ(spec.connections(), 4u);
  EXPECT_EQ(spec.threads(), 2u);
  EXPECT_EQ(spec.in_flight(), 4u);
  EXPECT_EQ(spec.http().request_body_bytes(), 100u);
  EXPECT_TRUE(spec.http().expect_echo());
}

// wamp_rpc's shared registration, slow callee, timeout and cancel reach the worker; the callee
// keys only with callee = "worker", cancel_mode only with cancel_after.
TEST(WorkerSpec, CarriesSharedRegistrationsTimeoutsAndCancellation) {
  scenario::Workload w = workload(4, 1, 1, 0);
  w.protocol = scenario::Protocol::kWampRpc;
  w.wamp.callee = "worker";
  w.wamp.procedure = "p.q";
  w.wamp.callee_sessions = 3;
  w.wamp.invoke = "roundrobin";
  w.wamp.callee_delay_ns = 20'000'000;
  w.wamp.call_timeout_ns = 5'000'000;
  w.wamp.cancel_after_ns = 2'000'000;
  w.wamp.cancel_mode = "kill";
  auto spec = worker_spec(w, {4, 1, 0}, "127.0.0.1:1234", {});
  EXPECT_EQ(spec.wamp().callee_sessions(), 3u);
  EXPECT_EQ(spec.wamp().invoke(), "roundrobin");
  EXPECT_EQ(spec.wamp().callee_delay_ns(), 20'000'000);
  EXPECT_EQ(spec.wamp().call_timeout_ms(), 5u);
  EXPECT_EQ(spec.wamp().cancel_after_ns(), 2'000'000);
  EXPECT_EQ(spec.wamp().cancel_mode(), "kill");
  w.wamp.callee = "router";
  w.wamp.cancel_after_ns = 0;
  spec = worker_spec(w, {4, 1, 0}, "127.0.0.1:1234", {});
  EXPECT_EQ(spec.wamp().callee_sessions(), 0u);
  EXPECT_EQ(spec.wamp().invoke(), "");
  EXPECT_EQ(spec.wamp().cancel_mode(), "");
  EXPECT_EQ(spec.wamp().call_timeout_ms(), 5u);
}

}  // namespace
}  // namespace benchgate::engine
