// [workers]: the remote workers a scenario asks for (`at`, `count`) and what its workloads do
// when one is lost (`on_worker_loss`), a key [defaults] and a workload may also set.
#include "common/util/shown_text.h"
#include "common/workload/workload_limits.h"
#include "orchestrator/scenario/dial_address.h"
#include "orchestrator/scenario/sections.h"

namespace benchgate::scenario {
namespace {

void read_at(TableReader& r, RemoteWorkers& workers) {
  Diagnostics& diag = r.diagnostics();
  const toml::node* at = r.node("at");
  if (!at) return;
  std::optional<std::vector<std::string>> entries;
  if (at->is_string()) {
    if (auto one = r.string("at")) entries = std::vector<std::string>{std::move(*one)};
  } else {
    entries = r.string_array("at");
  }
  if (!entries) return;
  if (entries->empty()) {
    diag.error(workers.at_where,
               "key 'at' in [workers] must name at least one worker (\"HOST:PORT\", "
               "\"dns:NAME:PORT\" or \"unix:PATH\")");
    return;
  }
  bool ok = true;
  for (const auto& entry : *entries) {
    // The forms --workers-at takes (workers/discovery.h), by the same check.
    auto checked = check_dial_address("key 'at' in [workers]:", entry, kWorkerForms);
    if (checked) continue;
    ok = false;
    diag.error(workers.at_where, checked.message());
  }
  if (ok) workers.at = std::move(*entries);
}

void read_workers_table(TableReader& top, Scenario& scenario) {
  Diagnostics& diag = top.diagnostics();
  const toml::table* table = top.table("workers");
  if (!table) return;
  TableReader r(*table, "in [workers]", diag, top.interpolator());
  r.check_keys({"at", "count", "on_worker_loss"}, {});
  RemoteWorkers& workers = scenario.workers;
  workers.where = r.table_location();
  workers.at_where = r.value_location("at");
  read_at(r, workers);
  if (auto count = r.integer("count", 1, workload_limits::kMaxWorkers)) {
    workers.count = static_cast<uint32_t>(*count);
    if (!r.has("at") && !r.misspelt("at")) {
      diag.error(r.key_location("count"),
                 "key 'count' in [workers] needs 'at' (the workers to wait for); the workers "
                 "this machine spawns are as many as each workload's 'workers'");
    }
  }
  if (auto loss = read_worker_loss(r)) workers.on_worker_loss = *loss;
}

}  // namespace

std::optional<WorkerLoss> read_worker_loss(TableReader& r) {
  auto choice = r.choice("on_worker_loss", {"fail", "continue"});
  if (!choice) return std::nullopt;
  return *choice == "continue" ? WorkerLoss::kContinue : WorkerLoss::kFail;
}

void read_workers(TableReader& top, Scenario& scenario) {
  read_workers_table(top, scenario);
  for (Workload& w : scenario.workloads) {
    if (!w.on_worker_loss) w.on_worker_loss = scenario.workers.on_worker_loss;
  }
}

}  // namespace benchgate::scenario
