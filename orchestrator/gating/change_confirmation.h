// The confirming rerun of change gates with `confirm = 1` (docs/GATES.md, "Confirming rerun"),
// as the engine's hook (engine/confirmation.h): after each workload, the run's change gates with
// confirm = 1 are judged on it as the run's gates will be; one that fails has the workload
// measured once more, and the rerun is kept for the gates (WorkloadValues::rerun).
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "orchestrator/engine/confirmation.h"
#include "orchestrator/gating/run_gates.h"

namespace benchgate::gating {

class ChangeConfirmation : public engine::ConfirmationHook {
 public:
  // `context` as evaluate_gates gets it; `shown` shows the rerun's windows (the terminal).
  ChangeConfirmation(const std::vector<scenario::Gate>& gates, GateContext context,
                     engine::RunObserver& shown)
      : gates_(gates), context_(std::move(context)), shown_(shown) {}

  std::string rerun_reason(const results::WorkloadResult& measured) override;
  engine::RunObserver& rerun_observer() override { return shown_; }
  void rerun_finished(const results::WorkloadResult& measured,
                      results::WorkloadResult rerun) override;

  // Gives each workload of `values` that was measured again its rerun (this object must
  // outlive `values`).
  void attach(std::vector<WorkloadValues>& values) const;

 private:
  const std::vector<scenario::Gate>& gates_;
  GateContext context_;
  engine::RunObserver& shown_;
  std::map<std::pair<std::string, std::string>, results::WorkloadResult>
      reruns_;  // by name, variant
};

}  // namespace benchgate::gating
