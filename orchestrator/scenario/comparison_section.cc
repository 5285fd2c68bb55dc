// [routers.NAME] and [compare]: named variants of the system under test, and the comparison that
// runs every workload on each router, or with each worker implementation, in turn
// (docs/SCENARIOS.md, "Comparing routers: [routers.NAME] and [compare]", and its section on
// comparing workers).
#include <algorithm>
#include <cmath>
#include <set>
#include <string_view>
#include <utility>
#include <vector>

#include "common/net/bind_trial.h"
#include "common/net/host_port.h"
#include "common/util/shown_text.h"
#include "common/workload/decimal_text.h"
#include "orchestrator/scenario/http_url.h"
#include "orchestrator/scenario/sections.h"
#include "orchestrator/scenario/suggest.h"
#include "orchestrator/scenario/worker_impls_section.h"
#include "orchestrator/scenario/workload_glob.h"

namespace benchgate::scenario {
namespace {

// The [routers.NAME] entries the loader refused, each reported once where it is written: a
// [compare] routers entry naming one is not reported again as a router no [routers.NAME]
// defines, which would send the reader looking for a table that is there. A table with a value
// the loader refused (impl = "comand", tls = "yes", a missing address) is refused whole, as a
// [worker_impls.NAME] with a bad command or adapter is: kept, it would stand for a router the
// file does not describe (the misspelt impl read as builtin), and later checks that take its
// settings would report mistakes that are not there. An unknown key alone leaves the table
// read as written, the key unset, as in [worker_impls.NAME]; one that misspells a key the table
// needs ('adress') is its one error, not reported again as that key's absence.
struct RefusedRouters {
  bool all = false;  // `routers` is not a table at all
  std::set<std::string, std::less<>> names;

  bool covers(std::string_view name) const { return all || names.count(name) != 0; }
};

RefusedRouters read_routers(TableReader& top, Scenario& scenario) {
  Diagnostics& diag = top.diagnostics();
  RefusedRouters refused;
  const toml::table* routers = top.table("routers");
  if (!routers) {
    refused.all = top.has("routers");
    return refused;
  }
  for (const auto& [key, node] : *routers) {
    const std::string name(key.str());
    const std::string section = "[routers." + shown_text(name) + "]";
    if (std::string why = name_problem(name); !why.empty()) {
      diag.error(diag.at(key.source()), "router name '" + shown_text(name) + "' " + why);
      refused.names.insert(name);
      continue;
    }
    if (!node.is_table()) {
      diag.error(node.source(), "key '" + shown_text(name) + "' in [routers] must be a table (" +
                                    section + "), got " + std::string(toml_type_name(node)));
      refused.names.insert(name);
      continue;
    }
    TableReader r(*node.as_table(), "in " + section, diag, top.interpolator());
    r.check_keys({"impl", "threads", "command", "ready", "address", "rawsocket_address",
                  "websocket_address", "metrics", "requires", "ws_fragment_bytes", "tls",
                  "tls_cert", "tls_key", "startup_timeout"},
                 kRouterNotYet);
    const size_t reported = diag.reported();
    RouterConfig config = read_router_table(r, section);
    if (auto programs = r.string_array("requires")) {
      config.requires_programs = std::move(*programs);
    } else if (!config.command.empty() && config.command.front().find('/') == std::string::npos) {
      // A program named by a path is no installed program but a file the scenario names: one
      // that is missing fails the variant when it starts (ExternalSystem::start), as under
      // [router], never not_configured, which would let a typo in a build's path pass.
      config.requires_programs = {config.command.front()};
    }
    if (diag.reported() != reported) {
      refused.names.insert(name);
      continue;
    }
    scenario.routers[name] = std::move(config);
  }
  return refused;
}

// Two `command` variants listening on one port of one address: every compared router is
// started before the first workload, so the second would be refused at run time as if another
// program listened there, when it is its fellow variant. An address is compared by what it
// is, not as written, and without a lookup (net::hosts_share_an_address_without_lookup:
// "localhost" and "127.0.0.1" are one, a wildcard takes the port of every address it covers,
// another name is only itself): `orchestrator serve` loads a submitted scenario before its
// policy check, and resolving here would resolve names of the client's choosing. A variant's
// `metrics` endpoint on this machine (net::names_this_machine) counts against another's address
// keys: the command listens on those, and whatever serves the endpoint holds that port too (the
// orchestrator only connects to either); one on another machine (an exporter there) cannot
// take a local port. Two variants' metrics may be one endpoint (a machine-wide exporter both
// scrape); one variant may serve every endpoint of its own on one port. Reported at the
// second's key, naming the first and where it is written.
void refuse_shared_addresses(Diagnostics& diag, const Scenario& scenario,
                             const std::vector<std::string>& names) {
  struct Listener {
    std::string variant;
    std::string key;
    std::string value;  // as interpolated
    std::string host;
    uint16_t port = 0;
    bool metrics = false;
    bool elsewhere = false;  // a metrics endpoint not known to be on this machine
  };
  std::vector<Listener> earlier;  // of the variants before this one
  std::set<std::string> seen;
  for (const std::string& name : names) {
    auto found = scenario.routers.find(name);
    if (found == scenario.routers.end() || !seen.insert(name).second) continue;
    const RouterConfig& router = found->second;
    if (router.impl != RouterImpl::kCommand) continue;
    std::vector<Listener> own;
    for (const auto& [key, value] :
         {std::pair<std::string, const std::string*>{"address", &router.address},
          {"rawsocket_address", &router.rawsocket_address},
          {"websocket_address", &router.websocket_address}}) {
      const net::HostPortSplit split = net::split_host_port(*value, net::kDialMinPort);
      if (split.ok()) own.push_back({name, key, *value, split.host, split.port, false});
    }
    if (auto url = parse_http_url(router.metrics); !router.metrics.empty() && url) {
      own.push_back({name, "metrics", router.metrics, url->host, url->port, true,
                     !net::names_this_machine(url->host)});
    }
    std::set<std::string> reported;  // one error a value: address and websocket_address alike
    for (const Listener& second : own) {
      for (const Listener& first : earlier) {
        if ((first.metrics && second.metrics) || first.elsewhere || second.elsewhere ||
            first.port != second.port ||
            !net::hosts_share_an_address_without_lookup(first.host, second.host)) {
          continue;
        }
        if (!reported.insert(second.value).second) break;
        const Location there = scenario.routers.at(first.variant).at(first.key);
        diag.error(
            router.at(second.key),
            "[routers." + shown_text(name) + "] " + second.key + " '" + shown_text(second.value) +
                "' " + (first.value == second.value ? "is also" : "takes the port of") +
                " [routers." + shown_text(first.variant) + "] " + first.key +
                (first.value == second.value ? "" : " '" + shown_text(first.value) + "'") + " (" +
                there.file + ":" + std::to_string(there.line) + ":" + std::to_string(there.column) +
                "): every compared router is started before the first workload, so two "
                "commands cannot both listen there; give each variant its own "
                "${port:NAME}");
        break;
      }
    }
    earlier.insert(earlier.end(), own.begin(), own.end());
  }
}

// [compare] routers = [...]: the named [routers.NAME] variants, instead of [router]. One that
// names a [routers.NAME] the loader refused is not reported again.
void read_compare_routers(TableReader& top, TableReader& r, Scenario& scenario,
                          const RefusedRouters& refused) {
  Diagnostics& diag = top.diagnostics();
  auto names = r.string_array("routers");
  if (!names) return;
  std::set<std::string> seen;
  for (const std::string& name : *names) {
    if (!scenario.routers.count(name) && !refused.covers(name)) {
      std::vector<std::string_view> known;
      for (const auto& [router, config] : scenario.routers) known.push_back(router);
      diag.error(r.value_location("routers"), "[compare] names router '" + shown_text(name) +
                                                  "', which no [routers." + shown_text(name) +
                                                  "] defines" + did_you_mean(name, known));
    } else if (!seen.insert(name).second) {
      diag.error(r.value_location("routers"),
                 "[compare] names router '" + shown_text(name) + "' twice");
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
  refuse_shared_addresses(diag, scenario, *names);
  scenario.compare_routers = std::move(*names);
}

// Every `worker = ...` written in [defaults] or a workload: with [compare] workers the
// comparison chooses the worker, so a workload's own choice would be silently overridden.
void refuse_workload_workers(TableReader& top) {
  Diagnostics& diag = top.diagnostics();
  auto refuse = [&](const toml::node& table, const std::string& where) {
    const toml::table* t = table.as_table();
    if (!t) return;
    if (const toml::node* worker = t->get("worker")) {
      diag.error(diag.at(worker->source()),
                 "key 'worker' in " + where +
                     " conflicts with [compare] workers, which runs every workload with each "
                     "listed worker: remove it");
    }
  };
  if (const toml::node* defaults = top.node("defaults")) refuse(*defaults, "[defaults]");
  const toml::node* workloads = top.node("workloads");
  if (!workloads || !workloads->is_array()) return;
  size_t i = 0;
  for (const toml::node& w : *workloads->as_array()) {
    refuse(w, "[[workloads]] #" + std::to_string(++i));
  }
}

// [compare] workers = [...]: "builtin" or [worker_impls.NAME] names, each run against the
// scenario's [router].
void read_compare_workers(TableReader& top, TableReader& r, Scenario& scenario,
                          const RefusedWorkerImpls& refused) {
  Diagnostics& diag = top.diagnostics();
  auto names = r.string_array("workers");
  if (!names) return;
  std::set<std::string> seen;
  for (const std::string& name : *names) {
    if (name != "builtin" && !scenario.worker_impls.count(name) && !refused.covers(name)) {
      std::string known = "builtin";
      std::vector<std::string_view> names_known = {"builtin"};
      for (const auto& [impl, config] : scenario.worker_impls) {
        known += ", " + impl;
        names_known.push_back(impl);
      }
      diag.error(r.value_location("workers"),
                 "[compare] names worker '" + shown_text(name) +
                     "', which is neither builtin nor defined by [worker_impls." +
                     shown_text(name) + "]" + did_you_mean(name, names_known) +
                     "; known: " + known);
    } else if (!seen.insert(name).second) {
      diag.error(r.value_location("workers"),
                 "[compare] names worker '" + shown_text(name) + "' twice");
    }
  }
  if (names->size() < 2) {
    diag.error(r.value_location("workers"), "[compare] workers needs at least two workers");
  }
  refuse_workload_workers(top);
  scenario.compare_workers = std::move(*names);
}

void read_compare(TableReader& top, Scenario& scenario, const RefusedRouters& refused_routers,
                  const RefusedWorkerImpls& refused) {
  Diagnostics& diag = top.diagnostics();
  const toml::table* table = top.table("compare");
  if (!table) return;
  TableReader r(*table, "in [compare]", diag, top.interpolator());
  r.check_keys({"routers", "workers"}, {});
  if (r.has("routers") && r.has("workers")) {
    // Two axes at once would confound them: every pair would differ in router and worker.
    diag.error(r.key_location("workers"),
               "[compare] routers and workers exclude each other: a comparison varies one "
               "thing; compare routers and workers in two scenario files");
  }
  if (r.has("workers") && !r.has("routers")) {
    read_compare_workers(top, r, scenario, refused);
  } else if (r.has("routers")) {
    read_compare_routers(top, r, scenario, refused_routers);
  } else {
    // Either key makes a comparison, so neither alone is "required".
    diag.error(r.table_location(),
               "[compare] needs routers = [...] or workers = [...]: the two or more routers "
               "([routers.NAME]) or workers (\"builtin\", [worker_impls.NAME]) to compare");
  }
}

}  // namespace

void read_comparison(TableReader& top, Scenario& scenario, const RefusedWorkerImpls& refused) {
  const RefusedRouters refused_routers = read_routers(top, scenario);
  read_compare(top, scenario, refused_routers, refused);
  if (scenario.compare_routers.empty() && scenario.compare_workers.empty()) {
    if (!scenario.routers.empty()) {
      top.diagnostics().error(top.key_location("routers"),
                              "[routers.NAME] is only used by [compare] routers = [...], "
                              "which is missing");
    }
    return;
  }
  if (!scenario.compare_workers.empty() && !scenario.routers.empty()) {
    top.diagnostics().error(top.key_location("routers"),
                            "[routers.NAME] is only used by [compare] routers = [...]; a "
                            "comparison of workers runs against [router]");
  }
}

namespace {

// The fewest pairs with which a paired gate's signed-rank test can ever be significant at
// `alpha`: its smallest p for n pairs is 2^-n (every pair worse: orchestrator/gates/
// signed_rank.h), and a gate fails only when p < alpha. Holm's correction over a run's other
// gates can only ask for more, and only as their p-values turn out, so it is not counted here.
uint32_t signed_rank_min_pairs(double alpha) {
  uint32_t n = 1;
  while (n < 1074 && std::ldexp(1.0, -static_cast<int>(n)) >= alpha) ++n;
  return n;
}

}  // namespace

void check_comparison_repetitions(TableReader& top, Scenario& scenario, bool keep_refused) {
  if (scenario.compare_routers.empty() && scenario.compare_workers.empty()) return;
  Diagnostics& diag = top.diagnostics();
  for (const Workload& w : scenario.workloads) {
    if (w.repetitions_refused) continue;
    const Location where = w.repetitions_where.line != 0 ? w.repetitions_where : w.where;
    const std::string who = "workload '" + shown_text(w.name) + "': ";
    const std::string count = std::to_string(w.repetitions);
    // Each repetition measures one window of each variant: a pair. The paired signed-rank gates
    // on this workload that need more of them than there are.
    const auto too_few = [&](const Gate& gate, uint32_t needed) {
      const uint32_t even = needed + needed % 2;
      return who + count + " repetitions make " + count +
             " pairs, and the signed-rank test of the paired gate at line " +
             std::to_string(gate.where.line) + " can never be significant at alpha " +
             workload_limits::decimal_text(gate.alpha) + " with fewer than " +
             std::to_string(needed) + " (no p is below 2^-" + count + " = " +
             workload_limits::decimal_text(std::ldexp(1.0, -static_cast<int>(w.repetitions))) +
             "): set repetitions to " + std::to_string(even) +
             " or more (an even number), or the gate's test = \"t\"";
    };
    std::vector<std::pair<Gate*, uint32_t>> short_of_pairs;
    for (Gate& gate : scenario.gates) {
      if (gate.against.empty() || gate.paired_test != PairedTest::kSignedRank ||
          !gate.refused.empty() || !(gate.alpha > 0 && gate.alpha < 1) ||
          !workload_matches(gate.workload, w.name)) {
        continue;
      }
      const uint32_t needed = signed_rank_min_pairs(gate.alpha);
      if (w.repetitions < needed) short_of_pairs.emplace_back(&gate, needed);
    }
    if (!short_of_pairs.empty()) {
      if (!keep_refused) {
        // The load fails: one error, for the gate that needs the most pairs (the first of
        // equals); the count it names is enough for every other.
        const auto strictest =
            std::max_element(short_of_pairs.begin(), short_of_pairs.end(),
                             [](const auto& a, const auto& b) { return a.second < b.second; });
        diag.error(where, too_few(*strictest->first, strictest->second));
      } else {
        // A stored run judged again: every gate that can never fail on these pairs is refused,
        // each for its own alpha, not the load (nor only the strictest of them).
        for (const auto& [gate, needed] : short_of_pairs) {
          gate->refused = "line " + std::to_string(where.line) + ": " + too_few(*gate, needed);
        }
      }
      continue;
    }
    // Alternating A B B A needs pairs of repetitions, so each variant runs first equally often.
    if (w.repetitions % 2 != 0) {
      diag.error(where, who +
                            "a comparison needs an even number of repetitions (order A B B "
                            "A ...), got " +
                            count);
    }
  }
}

}  // namespace benchgate::scenario
