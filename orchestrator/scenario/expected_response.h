// What a workload's workers check of each answer: the status, the body's length and whether the
// body echoes the request's. Defined once, for the engine, which tells the workers
// (orchestrator/engine/load_split.cc, worker_spec), and for the loader, which refuses a workload
// whose checks a [worker_impls] adapter could not make (adapter_workloads.cc): so the loader
// refuses exactly what the engine would hand an adapter that cannot run it.
#pragma once

#include <cstdint>

#include "orchestrator/scenario/scenario.h"

namespace benchgate::scenario {

// The response each request should get. Explicit expect_* keys win; for the bundled router
// (`bundled_router`: the system under test is [router] or a [routers.NAME] with impl =
// "builtin") the bench routes define it (hello: 12 bytes, bytes/N: N, delay/D: none, echo: the
// request body, its bytes compared with the request's), when the status expected is 200. A
// WAMP workload gets the defaults: its answers are checked by its protocol.
struct Expectation {
  uint32_t status = 200;
  int64_t body_bytes = -1;  // -1: any length
  bool echo = false;
};
Expectation expected_response(const Workload& workload, bool bundled_router);

}  // namespace benchgate::scenario
