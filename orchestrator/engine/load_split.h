// How one workload's totals (connections, rate) are divided between worker processes and
// threads, and what each worker is told to expect from the bundled router's routes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "benchgate/v1/worker.pb.h"
#include "common/util/expected.h"
#include "orchestrator/scenario/expected_response.h"
#include "orchestrator/scenario/scenario.h"
#include "orchestrator/sut/system_under_test.h"

namespace benchgate::engine {

struct WorkerShare {
  uint32_t connections = 0;
  uint32_t threads = 0;
  double rate = 0;     // requests/s for this worker; 0 for closed loop
  uint32_t index = 0;  // the worker's position
  // This worker's connections among the workload's: numbers first_connection ..
  // first_connection + connections - 1 of total_connections (the open-loop schedule spaces
  // all of them evenly, docs/MEASUREMENT.md "Closed loop and open loop").
  uint32_t first_connection = 0;
  uint32_t total_connections = 0;
};

// Connections as evenly as possible (the first workers get the remainder), threads capped at
// the worker's connections, rate proportional to connections, each worker's connections
// numbered after the previous worker's. Requires connections >= workers.
std::vector<WorkerShare> split_load(const scenario::Workload& workload);

// The response each request should get (the bench routes of the bundled router, or the
// workload's expect_* keys): one definition with the loader, which refuses the checks an
// adapter cannot make (orchestrator/scenario/expected_response.h).
using scenario::Expectation;
using scenario::expected_response;

// Where the workload's workers connect: the HTTP address, or the address of the WAMP
// transport the workload names.
Expected<std::string> target_address(const scenario::Workload& workload,
                                     const sut::SystemUnderTest& sut);

// What the router counted of the workload's operations in a window (`delta` of its counters):
// HTTP requests answered, WAMP calls routed (wamp_rpc) or events delivered (wamp_pubsub).
uint64_t router_operation_count(const scenario::Workload& workload,
                                const sut::MetricsSnapshot& delta);

// The protobuf spec for one worker. WAMP: rpc callers are split like connections; with
// callee = "worker" each worker registers and calls its own procedure (`procedure`.wN for
// N > 0 when there are several workers), since a router allows one registration per
// procedure. Pub/sub runs on one worker (the loader enforces it) with every publisher and
// subscriber.
v1::WorkloadSpec worker_spec(const scenario::Workload& workload, const WorkerShare& share,
                             const std::string& address, const Expectation& expectation);

// A TLS workload with neither ca_file nor insecure verifies against the CA the orchestrator
// made for the system under test ([router] tls = true), when there is one.
void use_system_ca(const sut::SystemUnderTest& sut, v1::WorkloadSpec& spec);

}  // namespace benchgate::engine
