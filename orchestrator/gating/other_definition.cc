// See other_definition.h.
#include "orchestrator/gating/other_definition.h"

#include "orchestrator/store/definition_differences.h"
#include "orchestrator/store/store.h"

namespace benchgate::gating {
namespace {

// A baseline is read back run by run; a baseline of many scenarios needs no more than this many
// of its runs of this scenario looked at to find the newest one that measured the workload.
constexpr int kMostRunsRead = 10;

}  // namespace

std::optional<gates::OtherDefinition> other_definition(const std::string& baseline,
                                                       const WorkloadValues& workload,
                                                       const GateContext& context) {
  if (!context.store || workload.params_hash.empty()) return std::nullopt;
  auto entries = context.store->list_baselines(baseline);
  if (!entries) return std::nullopt;
  int read = 0;
  for (const store::BaselineEntry& entry : *entries) {  // newest run first
    if (entry.scenario != context.scenario) continue;
    if (context.run_id != 0 && entry.run_id >= context.run_id) continue;
    if (++read > kMostRunsRead) break;
    auto run = context.store->get_run(entry.run_id);
    if (!run || run->run.testbed_id != context.testbed_id || run->run.status != "ok") continue;
    for (const store::StoredWorkload& w : run->workloads) {
      if (w.name != workload.name || w.variant != workload.variant || w.status != "ok") continue;
      if (w.params_hash == workload.params_hash) return std::nullopt;
      return gates::OtherDefinition{
          entry.run_id,
          store::definition_differences(w.params_json, workload.params_json,
                                        "run " + std::to_string(entry.run_id), "now")};
    }
  }
  return std::nullopt;
}

}  // namespace benchgate::gating
