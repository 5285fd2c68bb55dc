// [workers]: the remote workers a scenario asks for (`at`, `count`) and what its workloads do
// when one is lost (`on_worker_loss`), a key [defaults] and a workload may also set.
#include <charconv>

#include "common/util/shown_text.h"
#include "common/workload/workload_limits.h"
#include "orchestrator/scenario/sections.h"

namespace benchgate::scenario {
namespace {

bool valid_port(std::string_view text) {
  unsigned value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return !text.empty() && ec == std::errc() && end == text.data() + text.size() && value >= 1 &&
         value <= 65535;
}

// "dns:NAME:PORT" or "HOST:PORT" ("[v6]:PORT"), each with a port of 1..65535.
bool valid_entry(std::string_view entry) {
  if (entry.starts_with("dns:")) entry.remove_prefix(4);
  const size_t colon = entry.rfind(':');
  if (colon == std::string_view::npos || colon == 0) return false;
  if (entry.substr(0, colon).find_first_of(" \t/") != std::string_view::npos) return false;
  return valid_port(entry.substr(colon + 1));
}

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
               "key 'at' in [workers] must name at least one worker (\"dns:NAME:PORT\" or "
               "\"HOST:PORT\")");
    return;
  }
  bool ok = true;
  for (const auto& entry : *entries) {
    if (valid_entry(entry)) continue;
    ok = false;
    diag.error(workers.at_where, "key 'at' in [workers]: '" + shown_text(entry) +

                                     "' is not \"dns:NAME:PORT\" or \"HOST:PORT\" with a port "
                                     "of 1..65535 (e.g. \"dns:benchgate-worker:7800\")");
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
    if (!r.has("at")) {
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
