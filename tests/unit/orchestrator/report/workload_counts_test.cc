// The terminal's workload table explains a difference of the workers' and the router's counts
// with the engine's bound (scenario::Workload::operations_in_flight: HTTP/2's streams per
// connection, wamp_pubsub's publications at every subscriber), and says "not configured" once.
#include <gtest/gtest.h>

#include <string>

#include "orchestrator/report/terminal_report.h"

namespace benchgate::report {
namespace {

results::WorkloadResult counted_workload() {
  results::WorkloadResult w;
  w.spec.name = "hello";
  results::Repetition rep;
  rep.successes = rep.operations = 1000;
  rep.duration_ns = rep.data_window_ns = 1'000'000'000;
  rep.latency.record(50'000);
  w.repetitions.push_back(rep);
  w.latency.add(rep.latency);
  return w;
}

// HTTP/2 has `streams` outstanding per connection (its in_flight is 1): 4 connections of 10
// streams may leave 40 requests counted by one side only, as the engine allows
// (scenario::Workload::operations_in_flight).
TEST(WorkloadTable, AnHttp2DifferenceIsWithinConnectionsTimesStreams) {
  results::WorkloadResult w = counted_workload();
  w.spec.protocol = scenario::Protocol::kHttp2;
  w.spec.connections = 4;
  w.spec.in_flight = 1;
  w.spec.http2.streams = 10;
  EXPECT_EQ(w.spec.operations_in_flight(), 40u);
  w.repetitions.front().router.collected = true;
  w.repetitions.front().router.requests = 1040;
  const std::string table = workload_table(w);
  EXPECT_NE(table.find("(40 apart over 1 windows, within the 40 in flight at each window's edges"),
            std::string::npos)
      << table;
}

// wamp_pubsub counts events: each of the publishers' in_flight publications reaches every
// subscriber (its `connections` does not apply).
TEST(OperationsInFlight, PubSubCountsEveryPublicationAtEverySubscriber) {
  results::WorkloadResult w = counted_workload();
  w.spec.protocol = scenario::Protocol::kWampPubSub;
  w.spec.wamp.publishers = 2;
  w.spec.wamp.subscribers = 4;
  w.spec.in_flight = 3;
  EXPECT_EQ(w.spec.operations_in_flight(), 24u);
  w.spec.protocol = scenario::Protocol::kHttp1;
  w.spec.connections = 5;
  EXPECT_EQ(w.spec.operations_in_flight(), 15u);
}

// The stored reason keeps its kind ("not_configured: ..."); the line says it once.
TEST(WorkloadTable, ANotConfiguredWorkloadSaysSoOnce) {
  results::WorkloadResult w;
  w.spec.name = "h2";
  w.status = results::WorkloadStatus::kNotConfigured;
  w.error = "not_configured: 'h2load' is not installed (not found on PATH)";
  const std::string table = workload_table(w);
  EXPECT_NE(table.find("  NOT CONFIGURED (no figures): 'h2load' is not installed (not found on "
                       "PATH)\n"),
            std::string::npos)
      << table;
  EXPECT_EQ(table.find("not_configured:"), std::string::npos) << table;
  EXPECT_EQ(w.error, "not_configured: 'h2load' is not installed (not found on PATH)");
}

// wamp_pubsub: the workers' operations are the events they expected, failures included; those
// received are the successes, and the line says which is which (before: "events: 8362 received
// by workers" where none was received, every publication refused).
TEST(WorkloadTable, APubSubCountsLineSaysTheEventsReceivedApartFromThoseCounted) {
  results::WorkloadResult w = counted_workload();
  w.spec.protocol = scenario::Protocol::kWampPubSub;
  w.spec.wamp.publishers = 1;
  w.spec.wamp.subscribers = 1;
  w.spec.in_flight = 1;
  results::Repetition& rep = w.repetitions.front();
  rep.successes = 0;
  rep.operations = 8362;
  rep.errors["not_authorized"] = 8362;
  rep.router.collected = true;
  rep.router.requests = 0;
  rep.flags.push_back("router_count_mismatch");
  const std::string table = workload_table(w);
  EXPECT_NE(table.find("  events: 8362 counted by workers (0 received), 0 delivered by the router "
                       "(8362 apart: router_count_mismatch in 1 of 1 windows"),
            std::string::npos)
      << table;
}

// wamp_transfer: a rate no verified transfer gave (every call failed) is "not measured", with
// no unit after it; a measured one carries its unit.
TEST(WorkloadTable, ATransferRateNotMeasuredHasNoUnit) {
  results::WorkloadResult w = counted_workload();
  w.spec.protocol = scenario::Protocol::kWampTransfer;
  w.repetitions.front().successes = 0;
  w.repetitions.front().transfer = results::TransferSums{};
  std::string table = workload_table(w);
  EXPECT_NE(table.find("  transfer: not measured over the data window, not measured over the "
                       "lifecycle\n"),
            std::string::npos)
      << table;
  EXPECT_EQ(table.find("not measured Gbit/s"), std::string::npos) << table;

  // 8 x 1e9 bytes over 4 s and 8 s: 2 and 1 Gbit/s.
  w.repetitions.front().transfer = results::TransferSums{.transfers = 1,
                                                         .data_bytes = 1'000'000'000,
                                                         .data_ns = 4'000'000'000,
                                                         .lifecycle_bytes = 1'000'000'000,
                                                         .lifecycle_ns = 8'000'000'000};
  table = workload_table(w);
  EXPECT_NE(table.find("  transfer: 2.000 Gbit/s over the data window, 1.000 Gbit/s over the "
                       "lifecycle\n"),
            std::string::npos)
      << table;
}

}  // namespace
}  // namespace benchgate::report
