// [worker_impls.NAME]: worker programs that speak the worker protocol (docs/WORKER_PROTOCOL.md),
// and the check that every workload's `worker` names one of them or "builtin".
#include "orchestrator/scenario/worker_impls_section.h"

#include <algorithm>

#include "common/util/shown_text.h"
#include "orchestrator/scenario/sections.h"
#include "orchestrator/scenario/suggest.h"

namespace benchgate::scenario {

RefusedWorkerImpls read_worker_impls(TableReader& top, Scenario& scenario) {
  Diagnostics& diag = top.diagnostics();
  RefusedWorkerImpls refused;
  const toml::table* impls = top.table("worker_impls");
  if (!impls) {
    refused.all = top.has("worker_impls");
    return refused;
  }
  for (const auto& [key, node] : *impls) {
    const std::string name(key.str());
    const std::string section = "[worker_impls." + shown_text(name) + "]";
    // Each `continue` below has reported why the entry is refused; an entry read in full is
    // taken out again at the end of the loop's body.
    refused.names.insert(name);
    if (std::string why = name_problem(name); !why.empty()) {
      diag.error(diag.at(key.source()), "worker name '" + shown_text(name) + "' " + why);
      continue;
    }
    if (name == "builtin") {
      diag.error(diag.at(key.source()), "worker name 'builtin' is the bundled worker's");
      continue;
    }
    if (!node.is_table()) {
      diag.error(node.source(), "key '" + shown_text(name) +
                                    "' in [worker_impls] must be a table (" + section + "), got " +
                                    std::string(toml_type_name(node)));
      continue;
    }
    TableReader r(*node.as_table(), "in " + section, diag, top.interpolator());
    r.check_keys({"command", "adapter", "startup_timeout"}, {});
    WorkerImpl impl;
    impl.where = r.table_location();
    if (auto v = r.duration_ns("startup_timeout", false)) impl.startup_timeout_ns = *v;
    impl.command_where = r.value_location(r.has("adapter") ? "adapter" : "command");
    if (r.has("command") && r.has("adapter")) {
      diag.error(r.key_location("adapter"),
                 "keys 'command' and 'adapter' exclude each other in " + section +
                     ": 'command' runs your worker program, 'adapter' the bundled worker "
                     "around a tool");
      continue;
    }
    if (r.has("adapter")) {
      auto adapter = r.string("adapter");
      if (!adapter) continue;
      const auto& known = known_adapters();
      if (std::find(known.begin(), known.end(), *adapter) == known.end()) {
        std::string list;
        for (const auto& a : known) list += (list.empty() ? "" : ", ") + a;
        diag.error(r.value_location("adapter"), "unknown adapter '" + shown_text(*adapter) +
                                                    "' in " + section + " (known: " + list + ")");
        continue;
      }
      impl.adapter = std::move(*adapter);
      scenario.worker_impls[name] = std::move(impl);
      refused.names.erase(name);
      continue;
    }
    if (!r.has("command")) {
      // A misspelt 'command' or 'adapter' is reported where it is written, once.
      if (r.misspelt("command") || r.misspelt("adapter")) continue;
      diag.error(r.table_location(), section + " needs 'command' (a worker program and its " +
                                         "arguments) or 'adapter' (h2load, wrk)");
      continue;
    }
    auto command = r.string_array("command");
    if (!command) continue;
    bool ok = !command->empty();
    for (const std::string& argument : *command) ok = ok && !argument.empty();
    if (!ok) {
      diag.error(r.value_location("command"),
                 "key 'command' must be a program and its arguments, none of them empty");
      continue;
    }
    impl.command = std::move(*command);
    scenario.worker_impls[name] = std::move(impl);
    refused.names.erase(name);
  }
  return refused;
}

void check_workload_workers(const Scenario& scenario, const RefusedWorkerImpls& refused,
                            Diagnostics& diag) {
  // The known workers, listed once for every workload that names another. Each such workload
  // is told the nearest, found by comparing with every known name: only as many as a load lists
  // errors are, so that thousands of them on thousands of workers are not refused in minutes.
  std::string known;
  std::vector<std::string_view> names;
  size_t suggestions_left = Diagnostics::kMaxListed;
  for (const Workload& w : scenario.workloads) {
    if (w.worker == "builtin" || scenario.worker_impls.count(w.worker)) continue;
    if (refused.covers(w.worker)) continue;
    if (names.empty()) {
      known = "builtin";
      names = {"builtin"};
      for (const auto& [name, impl] : scenario.worker_impls) {
        known += ", " + name;
        names.push_back(name);
      }
    }
    std::string suggestion;
    if (suggestions_left > 0) {
      --suggestions_left;
      suggestion = did_you_mean(w.worker, names);
    }
    diag.error(w.worker_where.line != 0 ? w.worker_where : w.where,
               "workload '" + shown_text(w.name) + "': worker '" + shown_text(w.worker) +
                   "' is not defined" + suggestion + ": no [worker_impls." + shown_text(w.worker) +
                   "]; known: " + known);
  }
}

}  // namespace benchgate::scenario
