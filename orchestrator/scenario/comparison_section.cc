// [routers.NAME] and [compare]: named variants of the system under test and the comparison that
// runs every workload on each of them in turn (SCENARIOS.md, "Comparing implementations").
#include <algorithm>
#include <set>

#include "orchestrator/scenario/sections.h"

namespace benchgate::scenario {
namespace {

void read_routers(TableReader& top, Scenario& scenario) {
  Diagnostics& diag = top.diagnostics();
  const toml::table* routers = top.table("routers");
  if (!routers) return;
  for (const auto& [key, node] : *routers) {
    const std::string name(key.str());
    const std::string section = "[routers." + name + "]";
    if (!is_valid_name(name)) {
      diag.error(diag.at(key.source()), "router name '" + name + "' must match [a-z0-9_.-]+");
      continue;
    }
    if (!node.is_table()) {
      diag.error(node.source(), "key '" + name + "' in [routers] must be a table (" + section +
                                    "), got " + std::string(toml_type_name(node)));
      continue;
    }
    TableReader r(*node.as_table(), "in " + section, diag, top.interpolator());
    r.check_keys({"impl", "threads", "command", "ready", "address", "metrics", "requires"}, {});
    RouterConfig config = read_router_table(r, section);
    if (auto programs = r.string_array("requires")) {
      config.requires_programs = std::move(*programs);
    } else if (!config.command.empty()) {
      config.requires_programs = {config.command.front()};
    }
    scenario.routers[name] = std::move(config);
  }
}

void read_compare(TableReader& top, Scenario& scenario) {
  Diagnostics& diag = top.diagnostics();
  const toml::table* table = top.table("compare");
  if (!table) return;
  TableReader r(*table, "in [compare]", diag, top.interpolator());
  r.check_keys({"routers"}, {{"workers", "comparing worker implementations is planned"}});
  if (!r.require("routers")) return;
  auto names = r.string_array("routers");
  if (!names) return;
  std::set<std::string> seen;
  for (const std::string& name : *names) {
    if (!scenario.routers.count(name)) {
      diag.error(r.value_location("routers"),
                 "[compare] names router '" + name + "', which no [routers." + name + "] defines");
    } else if (!seen.insert(name).second) {
      diag.error(r.value_location("routers"), "[compare] names router '" + name + "' twice");
    }
  }
  if (names->size() < 2) {
    diag.error(r.value_location("routers"), "[compare] routers needs at least two routers");
  }
  if (top.has("router")) {
    diag.error(top.key_location("router"),
               "[router] and [compare] routers exclude each other: name every variant in "
               "[routers.NAME]");
  }
  scenario.compare_routers = std::move(*names);
}

}  // namespace

void read_comparison(TableReader& top, Scenario& scenario) {
  read_routers(top, scenario);
  read_compare(top, scenario);
  if (scenario.compare_routers.empty()) {
    if (!scenario.routers.empty()) {
      top.diagnostics().error(top.key_location("routers"),
                              "[routers.NAME] is only used by [compare] routers = [...], "
                              "which is missing");
    }
    return;
  }
  // Alternating A B B A needs pairs of repetitions, so each variant runs first equally often.
  for (const Workload& w : scenario.workloads) {
    if (w.repetitions % 2 != 0) {
      top.diagnostics().error(w.where, "workload '" + w.name + "': a comparison needs an even " +
                                           "number of repetitions (order A B B A ...), got " +
                                           std::to_string(w.repetitions));
    }
  }
}

}  // namespace benchgate::scenario
