// See adapter_workloads.h.
#include "orchestrator/scenario/adapter_workloads.h"

#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/util/shown_text.h"
#include "common/workload/adapter_limits.h"
#include "orchestrator/scenario/expected_response.h"

namespace benchgate::scenario {
namespace {

// The [[workloads]] tables by name (a sweep's workloads: the swept one's), the first of a name;
// read once, when a workload that runs on an adapter needs its table, rather than scanned for
// each workload (which made validating 32,000 workloads take half a minute).
class WorkloadTables {
 public:
  explicit WorkloadTables(TableReader& top) : top_(top) {}

  const toml::table* named(const std::string& name) {
    if (!read_) {
      read_ = true;
      const toml::node* node = top_.node("workloads");
      if (node != nullptr && node->is_array_of_tables()) {
        for (const toml::node& element : *node->as_array()) {
          const toml::table* table = element.as_table();
          if (auto written = table->get_as<std::string>("name")) {
            by_name_.emplace(written->get(), table);
          }
        }
      }
    }
    auto it = by_name_.find(name);
    return it == by_name_.end() ? nullptr : it->second;
  }

 private:
  TableReader& top_;
  bool read_ = false;
  std::unordered_map<std::string, const toml::table*> by_name_;
};

// Where the workload's keys are written: its own table, then [defaults] (either may be absent).
class KeyFinder {
 public:
  KeyFinder(TableReader& top, const Workload& w, WorkloadTables& tables) : top_(top), w_(w) {
    workload_ = tables.named(w.sweep_of.empty() ? w.name : w.sweep_of);
    defaults_ = top.node("defaults") ? top.node("defaults")->as_table() : nullptr;
  }

  // The location of the first of `keys` the file writes (a swept one: the workload's `sweep`),
  // else the workload's table.
  Location find(const std::vector<std::string_view>& keys) const {
    for (std::string_view key : keys) {
      if (!w_.sweep_parameter.empty() && key == w_.sweep_parameter) return at(workload_, "sweep");
      for (const toml::table* table : {workload_, defaults_}) {
        if (table != nullptr && table->contains(key)) return at(table, key);
      }
    }
    return w_.where;
  }

  // A duration key's value as the file writes it ("1.5s"), else `ns` exactly.
  std::string duration_text(std::string_view key, int64_t ns) const {
    for (const toml::table* table : {workload_, defaults_}) {
      const toml::node* node = table != nullptr ? table->get(key) : nullptr;
      if (node != nullptr && node->is_string()) return shown_text(*node->value<std::string>());
    }
    return adapter_limits::exact_duration_text(ns);
  }

 private:
  Location at(const toml::table* table, std::string_view key) const {
    if (table == nullptr) return w_.where;
    auto it = table->find(key);
    if (it == table->end()) return w_.where;
    return top_.diagnostics().at(it->first.source());
  }

  TableReader& top_;
  const Workload& w_;
  const toml::table* workload_ = nullptr;
  const toml::table* defaults_ = nullptr;
};

// Whether the workers check an echo of the request's body on any system under test the
// workload runs against: the engine's own expectation (expected_response.h) for [router], or
// for each router [compare] names.
bool expects_echo(const Workload& w, const Scenario& scenario) {
  auto echoes = [&](const RouterConfig& router) {
    return expected_response(w, router.impl == RouterImpl::kBuiltin).echo;
  };
  if (scenario.compare_routers.empty()) return echoes(scenario.router);
  for (const std::string& name : scenario.compare_routers) {
    auto it = scenario.routers.find(name);
    if (it != scenario.routers.end() && echoes(it->second)) return true;
  }
  return false;
}

adapter_limits::Workload as_adapter_workload(const Workload& w, const Scenario& scenario) {
  adapter_limits::Workload a;
  a.protocol = to_string(w.protocol);
  a.new_connection_per_request = w.new_connection_per_request;
  a.tls = w.tls.enabled;
  a.tls_insecure = w.tls.insecure;
  a.tls_version = w.tls.version;
  a.tls_resumption = w.tls.resumption;
  a.http2_initial_window = w.http2.initial_window;
  a.open_loop = w.rate > 0;
  a.method = w.http.method;
  a.request_body_bytes = w.http.request_bytes;
  a.expect_echo = expects_echo(w, scenario);
  a.expect_status = w.http.expect_status.value_or(200);
  a.target = w.http.target;
  a.in_flight = w.in_flight;
  return a;
}

}  // namespace

void check_adapter_workloads(TableReader& top, const Scenario& scenario) {
  Diagnostics& diag = top.diagnostics();
  // One refusal per workload, worker and key: a sweep's workloads share their keys.
  std::set<std::string> said;
  // Most scenarios run no adapter: nothing to look up for any workload.
  if (scenario.worker_impls.empty()) return;
  WorkloadTables tables(top);
  for (const Workload& w : scenario.workloads) {
    std::vector<std::string> workers = scenario.compare_workers;
    if (workers.empty()) workers.push_back(w.worker);
    std::optional<KeyFinder> found;
    const std::string name = w.sweep_of.empty() ? w.name : w.sweep_of;
    for (const std::string& worker : workers) {
      auto impl = scenario.worker_impls.find(worker);
      if (impl == scenario.worker_impls.end()) continue;
      const auto tool = adapter_limits::tool_named(impl->second.adapter);
      if (!tool) continue;
      // Where the keys are written is looked up only for a workload an adapter runs.
      if (!found) found.emplace(top, w, tables);
      const KeyFinder& keys = *found;
      const std::string who =
          "workload '" + shown_text(name) + "': worker '" + shown_text(worker) + "' (the " +
          adapter_limits::name_of(*tool) + " adapter" +
          (scenario.compare_workers.empty() ? "" : ", a variant of [compare] workers") +
          ") cannot run ";
      auto refuse = [&](const std::vector<std::string_view>& blamed, const std::string& what) {
        const Location where = keys.find(blamed);
        const std::string key = name + "\n" + worker + "\n" + std::string(blamed.front());
        if (said.insert(key).second) diag.error(where, who + what);
      };
      if (auto refused = adapter_limits::refusal(*tool, as_adapter_workload(w, scenario))) {
        refuse(refused->keys, refused->what);
      }
      // A warm-up of 0 runs no window.
      if (w.warmup_ns > 0) {
        if (auto why = adapter_limits::window_refusal(*tool, w.warmup_ns)) {
          refuse({"warmup"},
                 "a warm-up of " + keys.duration_text("warmup", w.warmup_ns) + " (" + *why + ")");
        }
      }
      if (auto why = adapter_limits::window_refusal(*tool, w.duration_ns)) {
        refuse({"duration"}, "measured windows of " +
                                 keys.duration_text("duration", w.duration_ns) + " (" + *why + ")");
      }
    }
  }
}

}  // namespace benchgate::scenario
