// How one workload's totals (connections, rate) are divided between worker processes and
// threads, and what each worker is told to expect from the bundled router's routes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "benchgate/v1/worker.pb.h"
#include "orchestrator/scenario/scenario.h"

namespace benchgate::engine {

struct WorkerShare {
  uint32_t connections = 0;
  uint32_t threads = 0;
  double rate = 0;  // requests/s for this worker; 0 for closed loop
};

// Connections as evenly as possible (the first workers get the remainder), threads capped at
// the worker's connections, rate proportional to connections. Requires connections >= workers.
std::vector<WorkerShare> split_load(const scenario::Workload& workload);

// The response each request should get. Explicit expect_* keys win; for the bundled router
// the bench routes define it (hello: 12 bytes, bytes/N: N, echo: the request body).
struct Expectation {
  uint32_t status = 200;
  int64_t body_bytes = -1;  // -1: any length
  bool echo = false;
};
Expectation expected_response(const scenario::Workload& workload, bool bundled_router);

// The protobuf spec for one worker.
v1::WorkloadSpec worker_spec(const scenario::Workload& workload, const WorkerShare& share,
                             const std::string& address, const Expectation& expectation);

}  // namespace benchgate::engine
