// Client of the bundled router's RouterControl service: readiness, metric snapshots, reset
// and shutdown, translated to domain types.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "benchgate/v1/router_control.grpc.pb.h"
#include "common/util/expected.h"
#include "orchestrator/sut/system_under_test.h"

namespace benchgate::sut {

class RouterControlClient {
 public:
  explicit RouterControlClient(const std::string& address);

  // Retries Health until it answers or the deadline passes.
  Expected<void> wait_healthy(std::chrono::steady_clock::time_point deadline);
  Expected<MetricsSnapshot> metrics();
  Expected<void> reset();
  Expected<void> shutdown();

 private:
  std::string address_;
  std::unique_ptr<v1::RouterControl::Stub> stub_;
};

// "name{a=1,b=2}" with labels in name order: the key of a counter in snapshots and stores.
std::string counter_key(const v1::Counter& counter);

}  // namespace benchgate::sut
