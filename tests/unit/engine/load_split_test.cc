// How a workload's totals are divided between workers, and what responses are expected.
#include "orchestrator/engine/load_split.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace benchgate::engine
