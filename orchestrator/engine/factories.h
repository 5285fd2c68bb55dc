// What the engine starts, behind one seam: the system under test and the worker pools. The
// runners never construct either themselves, so a unit test hands them fakes (tests/unit/
// orchestrator/engine) and runs a scenario's failure paths in one process; the CLI hands them
// production_factories(), which start real processes (sut/, workers/).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "orchestrator/scenario/scenario.h"
#include "orchestrator/sut/system_under_test.h"
#include "orchestrator/workers/worker_pool.h"

namespace benchgate::engine {

class Factories {
 public:
  virtual ~Factories() = default;
  // [router] or [routers.NAME]: not started yet (the runner calls start()).
  virtual std::unique_ptr<sut::SystemUnderTest> system_under_test(
      const scenario::RouterConfig& config, const sut::SutContext& context) const = 0;
  // Worker processes this machine spawns: the bundled worker or a [worker_impls] program.
  virtual std::unique_ptr<workers::WorkerPool> spawning_pool(
      const workers::SpawnConfig& config) const = 0;
  // Workers already running elsewhere (--workers-at).
  virtual std::unique_ptr<workers::WorkerPool> connecting_pool(
      const std::vector<std::string>& addresses, const std::string& token) const = 0;
};

// The real ones: make_system_under_test, make_spawning_pool, make_connecting_pool.
const Factories& production_factories();

}  // namespace benchgate::engine
