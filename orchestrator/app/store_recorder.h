// Stores each workload in the database the moment it finishes (one transaction each), so an
// interrupted or killed run keeps every workload that completed. A workload the database
// refused (locked past the busy timeout, disk full) is kept and tried again when the scenario
// ends; what still could not be stored is reported, so that no report calls it stored.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "orchestrator/engine/run_observer.h"
#include "orchestrator/store/store.h"

namespace benchgate::app {

class StoreRecorder : public engine::RunObserver {
 public:
  // `note` receives one line when a workload could not be stored at once.
  StoreRecorder(store::Store& store, int64_t run_id, std::function<void(const std::string&)> note)
      : store_(store), run_id_(run_id), note_(std::move(note)) {}

  void workload_finished(const results::WorkloadResult& workload) override {
    auto stored = store_.store_workload(run_id_, workload);
    if (stored) return;
    note_("warning: cannot store workload '" + workload.spec.name + "' of run " +
          std::to_string(run_id_) + " now (" + stored.message() +
          "); trying again when the scenario ends");
    pending_.push_back(workload);
  }

  struct Unstored {
    std::string name;
    std::string variant;
    std::string error;
  };
  // Stores again every workload that was refused; returns those refused again.
  std::vector<Unstored> retry_pending() {
    std::vector<Unstored> unstored;
    for (const auto& workload : pending_) {
      if (auto stored = store_.store_workload(run_id_, workload); !stored) {
        unstored.push_back({workload.spec.name, workload.variant, stored.message()});
      }
    }
    pending_.clear();
    return unstored;
  }

 private:
  store::Store& store_;
  int64_t run_id_;
  std::function<void(const std::string&)> note_;
  std::vector<results::WorkloadResult> pending_;
};

}  // namespace benchgate::app
