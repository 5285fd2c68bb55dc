// The router's control endpoint read by the orchestrator (sut/router_control_client.h): its
// handling histogram is taken in benchgate's layout only, as a worker's results are, and one of
// another layout or unreadable is an error naming the endpoint, never a figure.
#include "orchestrator/sut/router_control_client.h"

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "common/histogram/hdr_histogram.h"

namespace benchgate::sut {
namespace {

std::string encoded(const HdrHistogram& h) {
  auto bytes = h.encode_compressed();
  return {bytes.begin(), bytes.end()};
}

// A control endpoint that answers GetMetrics with one request and the handling histogram given.
class CannedControl final : public v1::RouterControl::Service {
 public:
  explicit CannedControl(std::string handling) : handling_(std::move(handling)) {}
  grpc::Status GetMetrics(grpc::ServerContext*, const v1::GetMetricsRequest*,
                          v1::MetricsSnapshot* response) override {
    auto* counter = response->add_counters();
    counter->set_name("http_requests");
    counter->set_value(1);
    response->mutable_handling()->set_hdr_v2_compressed(handling_);
    return grpc::Status::OK;
  }

 private:
  std::string handling_;
};

// The metrics the client reads from a canned endpoint on 127.0.0.1, and the address it had.
struct Reading {
  Expected<MetricsSnapshot> snapshot;
  std::string address;
};

Reading read_metrics(const std::string& handling) {
  CannedControl service(handling);
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(&service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  EXPECT_GT(port, 0);
  const std::string address = "127.0.0.1:" + std::to_string(port);
  Reading reading{RouterControlClient(address).metrics(), address};
  server->Shutdown();
  return reading;
}

TEST(RouterControlClient, TheHandlingHistogramIsReadInBenchgatesLayout) {
  HdrHistogram handling;
  handling.record_n(5'000, 3);
  auto reading = read_metrics(encoded(handling));
  ASSERT_TRUE(reading.snapshot.ok()) << reading.snapshot.message();
  EXPECT_EQ(reading.snapshot->requests, 1u);
  ASSERT_TRUE(reading.snapshot->handling);
  EXPECT_EQ(reading.snapshot->handling->total_count(), 3);
}

// Counts that fit the layout declared would decode; their figures are not the router's handling
// time as reported (another resolution, another range), so the layout is refused by name.
TEST(RouterControlClient, AHandlingHistogramOfAnotherLayoutIsAnErrorNamingIt) {
  HdrHistogram other(1, 1'000'000'000, 2);
  other.record_n(5'000, 3);
  auto reading = read_metrics(encoded(other));
  ASSERT_FALSE(reading.snapshot.ok());
  EXPECT_EQ(reading.snapshot.message(),
            "router metrics from " + reading.address +
                ": its handling histogram: layout is 1..1000000000 ns with 2 digits, not "
                "1..3600000000000 ns with 3 digits");
}

TEST(RouterControlClient, AnUnreadableHandlingHistogramIsAnErrorNamingTheEndpoint) {
  auto reading = read_metrics("\x13\x37garbage, not an HdrHistogram");
  ASSERT_FALSE(reading.snapshot.ok());
  EXPECT_EQ(reading.snapshot.message().rfind(
                "router metrics from " + reading.address + ": its handling histogram: ", 0),
            0u)
      << reading.snapshot.message();
}

}  // namespace
}  // namespace benchgate::sut
