// See other_definition.h.
#include "orchestrator/gating/other_definition.h"

#include <functional>
#include <set>

#include "common/util/joined_with_and.h"
#include "orchestrator/store/definition_differences.h"
#include "orchestrator/store/store.h"

namespace benchgate::gating {
namespace {

// A baseline is read back run by run; a baseline of many scenarios needs no more than this many
// of its runs of this scenario looked at to find the newest one that measured the workload.
constexpr int kMostRunsRead = 10;

// The one walk both lookups make: the runs of `baseline` of context.scenario stored before
// context.run_id, newest first, the kMostRunsRead newest of them read back; `visit` gets each
// that finished ok with its stored workload `workload` (name and variant) that finished ok,
// and returns true to stop. False when the store cannot list the baseline.
bool walk_baseline_runs(
    const std::string& baseline, const WorkloadValues& workload, const GateContext& context,
    const std::function<bool(store::RunDetail&, const store::StoredWorkload&)>& visit) {
  auto entries = context.store->list_baselines(baseline);
  if (!entries) return false;
  int read = 0;
  for (const store::BaselineEntry& entry : *entries) {  // newest run first
    if (entry.scenario != context.scenario) continue;
    if (context.run_id != 0 && entry.run_id >= context.run_id) continue;
    if (++read > kMostRunsRead) break;
    auto run = context.store->get_run(entry.run_id);
    if (!run || run->run.status != "ok") continue;
    for (const store::StoredWorkload& w : run->workloads) {
      if (w.name != workload.name || w.variant != workload.variant || w.status != "ok") continue;
      if (visit(*run, w)) return true;
      break;
    }
  }
  return true;
}

// The fields in which two testbeds differ, in the order `runs show` lists them, each with its
// value in both: "host (run 5: ci-a, now: ci-b)"; `run_id` is the run of `before`.
std::vector<std::string> testbed_differences(const store::Testbed& before,
                                             const store::Testbed& now, int64_t run_id) {
  const std::string run = "run " + std::to_string(run_id);
  std::vector<std::string> out;
  auto differ = [&](const char* field, const std::string& b, const std::string& n) {
    if (b != n) out.push_back(std::string(field) + " (" + run + ": " + b + ", now: " + n + ")");
  };
  differ("host", before.host, now.host);
  differ("cpu", before.cpu_model, now.cpu_model);
  differ("cores", std::to_string(before.cores), std::to_string(now.cores));
  differ("kernel", before.kernel, now.kernel);
  differ("governor", before.governor, now.governor);
  differ("compiler", before.compiler, now.compiler);
  differ("flags", before.build_flags, now.build_flags);
  return out;
}

}  // namespace

std::optional<gates::OtherDefinition> other_definition(const std::string& baseline,
                                                       const WorkloadValues& workload,
                                                       const GateContext& context) {
  if (!context.store || workload.params_hash.empty()) return std::nullopt;
  std::optional<gates::OtherDefinition> out;
  walk_baseline_runs(
      baseline, workload, context, [&](store::RunDetail& run, const store::StoredWorkload& w) {
        if (run.run.testbed_id != context.testbed_id) return false;
        if (w.params_hash != workload.params_hash) {
          const std::string label = "run " + std::to_string(run.run.id);
          out = gates::OtherDefinition{
              run.run.id,
              store::definition_differences(w.params_json, workload.params_json, label, "now")};
        }
        return true;
      });
  return out;
}

std::optional<gates::OtherTestbed> other_testbed(const std::string& baseline,
                                                 const WorkloadValues& workload,
                                                 const GateContext& context) {
  if (!context.store) return std::nullopt;
  std::optional<store::RunDetail> newest;  // the newest on another testbed that measured it
  bool on_this_testbed = false;
  walk_baseline_runs(baseline, workload, context,
                     [&](store::RunDetail& run, const store::StoredWorkload&) {
                       if (run.run.testbed_id == context.testbed_id) {
                         on_this_testbed = true;
                         return true;
                       }
                       if (!newest) newest = std::move(run);
                       return false;
                     });
  if (on_this_testbed || !newest) return std::nullopt;
  gates::OtherTestbed out{newest->run.id, newest->run.testbed_id, context.testbed_id, {}};
  if (context.run_id != 0) {
    if (auto judged = context.store->get_run(context.run_id)) {
      out.differences = testbed_differences(newest->testbed, judged->testbed, out.run_id);
    }
  }
  return out;
}

std::vector<std::string> other_scenarios(const std::string& baseline, const GateContext& context) {
  if (!context.store) return {};
  auto entries = context.store->list_baselines(baseline);
  if (!entries) return {};
  std::set<std::string> scenarios;
  for (const store::BaselineEntry& entry : *entries) {
    if (entry.scenario == context.scenario) return {};
    scenarios.insert(entry.scenario);
  }
  return {scenarios.begin(), scenarios.end()};
}

std::string other_scenarios_explanation(const std::string& baseline, const std::string& scenario,
                                        const std::vector<std::string>& scenarios) {
  constexpr size_t kMostNamed = 5;
  std::string named;
  for (size_t i = 0; i < scenarios.size() && i < kMostNamed; ++i) {
    named += (i == 0 ? "'" : ", '") + scenarios[i] + "'";
  }
  if (scenarios.size() > kMostNamed) {
    named += " and " + std::to_string(scenarios.size() - kMostNamed) + " more";
  }
  return "baseline '" + baseline + "' has no run of scenario '" + scenario + "': its runs are of " +
         (scenarios.size() == 1 ? "scenario " : "scenarios ") + named +
         "; a baseline's runs judge only their own scenario's gates, so promote a run of '" +
         scenario + "' to '" + baseline + "' (--promote " + baseline + ")";
}

std::vector<int64_t> newer_baseline_runs(const std::string& baseline, const GateContext& context) {
  if (!context.store || context.run_id == 0) return {};
  auto entries = context.store->list_baselines(baseline);
  if (!entries) return {};
  std::vector<int64_t> newer;
  for (const store::BaselineEntry& entry : *entries) {  // newest run first
    if (entry.scenario == context.scenario && entry.run_id > context.run_id) {
      newer.insert(newer.begin(), entry.run_id);
    }
  }
  return newer;
}

std::string before_judged_run_explanation(const std::string& explanation,
                                          const std::string& baseline, const std::string& metric,
                                          int64_t run_id, const std::vector<int64_t>& newer) {
  const std::string opening = "baseline '" + baseline + "' has no run with " + metric;
  if (newer.empty() || !explanation.starts_with(opening)) return explanation;
  constexpr size_t kMostNamed = 5;
  std::vector<std::string> named;
  for (size_t i = 0; i < newer.size() && i < kMostNamed; ++i) {
    named.push_back(std::to_string(newer[i]));
  }
  if (newer.size() > kMostNamed)
    named.push_back(std::to_string(newer.size() - kMostNamed) + " more");
  const std::string run = "run " + std::to_string(run_id);
  return opening + " stored before " + run + explanation.substr(opening.size()) +
         "; only runs stored before the judged run count: its " +
         (newer.size() == 1 ? "run" : "runs") + " of this scenario stored after " + run + " " +
         (newer.size() == 1 ? "is " : "are ") + joined_with_and(named);
}

}  // namespace benchgate::gating
