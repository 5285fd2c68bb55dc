// See other_definition.h.
#include "orchestrator/gating/other_definition.h"

#include <nlohmann/json.hpp>

#include "orchestrator/store/store.h"

namespace benchgate::gating {
namespace {

using nlohmann::json;

// A baseline is read back run by run; a baseline of many scenarios needs no more than this many
// of its runs of this scenario looked at to find the newest one that measured the workload.
constexpr int kMostRunsRead = 10;
// A value longer than this (a header map, a payload) is shortened: the key names the change.
constexpr size_t kMostValueChars = 40;

std::string shown(const json* value) {
  if (value == nullptr) return "none";
  std::string text = value->dump();
  if (text.size() > kMostValueChars) text = text.substr(0, kMostValueChars - 3) + "...";
  return text;
}

void differences(const json* before, const json* now, const std::string& path,
                 const std::string& run, std::vector<std::string>& out) {
  const bool objects = before && now && before->is_object() && now->is_object();
  if (objects) {
    // Both sorted by key (nlohmann::json's objects are std::map): one merge of the two.
    auto b = before->begin();
    auto n = now->begin();
    while (b != before->end() || n != now->end()) {
      const bool take_b = n == now->end() || (b != before->end() && b.key() <= n.key());
      const bool take_n = b == before->end() || (n != now->end() && n.key() <= b.key());
      const std::string key = take_b ? b.key() : n.key();
      differences(take_b ? &*b : nullptr, take_n ? &*n : nullptr,
                  path.empty() ? key : path + "." + key, run, out);
      if (take_b) ++b;
      if (take_n) ++n;
    }
    return;
  }
  if (before && now && *before == *now) return;
  out.push_back(path + " (" + run + ": " + shown(before) + ", now: " + shown(now) + ")");
}

}  // namespace

std::vector<std::string> definition_differences(const std::string& before, const std::string& now,
                                                int64_t run_id) {
  const json b = json::parse(before, nullptr, false);
  const json n = json::parse(now, nullptr, false);
  std::vector<std::string> out;
  if (!b.is_object() || !n.is_object()) return out;
  differences(&b, &n, "", "run " + std::to_string(run_id), out);
  return out;
}

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
          entry.run_id, definition_differences(w.params_json, workload.params_json, entry.run_id)};
    }
  }
  return std::nullopt;
}

}  // namespace benchgate::gating
