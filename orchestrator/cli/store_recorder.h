// Stores each workload in the database the moment it finishes (one transaction each), so an
// interrupted or killed run keeps every workload that completed.
#pragma once

#include <cstdint>
#include <string>

#include "orchestrator/engine/run_observer.h"
#include "orchestrator/store/store.h"

namespace benchgate::cli {

class StoreRecorder : public engine::RunObserver {
 public:
  StoreRecorder(store::Store& store, int64_t run_id) : store_(store), run_id_(run_id) {}

  void workload_finished(const results::WorkloadResult& workload) override {
    auto stored = store_.store_workload(run_id_, workload);
    if (!stored && error_.empty()) error_ = stored.message();
  }
  // The first storage error, empty when everything was stored.
  const std::string& error() const { return error_; }

 private:
  store::Store& store_;
  int64_t run_id_;
  std::string error_;
};

}  // namespace benchgate::cli
