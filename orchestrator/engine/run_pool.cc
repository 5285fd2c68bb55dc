// See run_pool.h.
#include "orchestrator/engine/run_pool.h"

#include "orchestrator/app/interrupt.h"

namespace benchgate::engine {

Expected<void> RunPool::prepare(std::chrono::steady_clock::time_point deadline,
                                RunObserver& observer, const std::string& scenario) {
  if (!used_) {
    used_ = true;
    return {};
  }
  // Only a failure of this pool's own previous workload makes its workers suspect.
  auto recovered = pool_->recover(last_failed_, deadline);
  if (!recovered) {
    Error error = Error::caused("workers could not be replaced", recovered.error());
    if (app::interrupted()) error.kind = ErrorKind::kInterrupted;
    return error;
  }
  if (!recovered->empty()) observer.message("[" + scenario + "] " + *recovered);
  return {};
}

}  // namespace benchgate::engine
