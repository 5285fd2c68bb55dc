// [[gates]]: absolute (max / min) or relative (baseline + max_regression) release gates, with
// bounds written in the unit of their metric and converted to base units (docs/GATES.md).
#include <algorithm>
#include <cstdint>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/util/baseline_name.h"
#include "common/util/shown_text.h"
#include "common/workload/decimal_text.h"
#include "orchestrator/scenario/expected_response.h"
#include "orchestrator/scenario/metrics.h"
#include "orchestrator/scenario/sections.h"
#include "orchestrator/scenario/suggest.h"
#include "orchestrator/scenario/workload_glob.h"

namespace benchgate::scenario {
namespace {

const std::vector<std::string_view> kGateKeys = {
    "workload", "variant",        "metric",  "max",      "min",
    "baseline", "max_regression", "alpha",   "severity", "fail_when_underpowered",
    "kind",     "min_change",     "confirm", "against",  "test"};

std::string metric_list() {
  std::string all;
  for (std::string_view m : metric_names()) {
    if (!all.empty()) all += ", ";
    all += m;
  }
  return all;
}

// A bound in the unit of its metric: seconds, bytes, a plain number or a ratio.
std::optional<double> read_bound(TableReader& r, std::string_view key, MetricKind kind) {
  switch (kind) {
    case MetricKind::kDuration: {
      auto ns = r.duration_ns(key, /*allow_zero=*/true);
      if (!ns) return std::nullopt;
      return static_cast<double>(*ns) / 1e9;
    }
    case MetricKind::kBytes: {
      auto bytes = r.size_bytes(key);
      if (!bytes) return std::nullopt;
      return static_cast<double>(*bytes);
    }
    case MetricKind::kNumber:
      return r.number(key, 0);
    case MetricKind::kRatio: {
      const toml::node* n = r.node(key);
      if (n && n->is_string()) return r.percent(key);
      return r.number(key, 0);
    }
  }
  return std::nullopt;
}

// errors.rate is errors over operations, worker.cpu_utilization the busiest load thread's CPU
// time over its window: a bound past 100% is a gate that can never fail (max) or never pass
// (min). An errors.rate max of 100% can never fail either (a gate fails only past its max, and
// errors never outnumber operations). Refused at the value, as the scenario wrote it.
void check_ratio_bound(TableReader& r, std::string_view key, std::optional<double> bound,
                       std::string_view metric) {
  if (!bound) return;
  const bool errors_max = metric == "errors.rate" && key == "max";
  if (errors_max ? *bound < 1 : *bound <= 1) return;
  const std::string_view what = metric == "errors.rate"
                                    ? "errors over operations"
                                    : "the busiest load thread's CPU time over its window";
  const toml::node* n = r.node(key);
  const std::string written = n->is_string() ? "\"" + shown_text(n->as_string()->get()) + "\""
                                             : workload_limits::decimal_text(*bound);
  const std::string head = "key '" + std::string(key) + "' of metric '" + std::string(metric) +
                           "' (" + std::string(what) + ")";
  r.diagnostics().error(r.value_location(key),
                        errors_max ? head + " must be below 100% (or 1), got " + written +
                                         ": errors never outnumber operations, so such a gate "
                                         "can never fail"
                                   : head + " must be at most 100% (or 1), got " + written);
}

// The workload names, for suggestions and matching.
std::vector<std::string_view> names_of(const std::vector<Workload>& workloads) {
  std::vector<std::string_view> names;
  for (const Workload& w : workloads) names.push_back(w.name);
  return names;
}

// The workloads by name, read once for all the gates: a gate that names one workload finds it
// here rather than matching every workload's name (which made 16,000 gates on as many workloads
// take seconds to validate).
using WorkloadsByName = std::unordered_map<std::string_view, std::vector<const Workload*>>;

struct WorkloadIndex {
  WorkloadIndex(const std::vector<Workload>& workloads, size_t suggestions)
      : suggestions_left(suggestions) {
    for (const Workload& w : workloads) by_name[w.name].push_back(&w);
  }
  WorkloadsByName by_name;
  // A gate that matches no workload is told the nearest name, found by comparing its own with
  // every workload's: when a load lists at most Diagnostics::kMaxListed errors, only that many
  // such gates are, so that a file of thousands of them is not refused in minutes.
  size_t suggestions_left;
};

// The workloads `pattern` matches, in file order: a name without a glob character or a
// backslash (which fnmatch reads as an escape) matches only itself.
std::vector<const Workload*> matching(const std::string& pattern,
                                      const std::vector<Workload>& workloads,
                                      const WorkloadIndex& index) {
  if (pattern.find_first_of("*?[\\") == std::string::npos) {
    auto it = index.by_name.find(pattern);
    return it == index.by_name.end() ? std::vector<const Workload*>() : it->second;
  }
  std::vector<const Workload*> out;
  for (const Workload& w : workloads) {
    if (workload_matches(pattern, w.name)) out.push_back(&w);
  }
  return out;
}

void check_workload_reference(TableReader& r, const std::string& pattern,
                              const std::vector<Workload>& workloads, WorkloadIndex& index) {
  if (!matching(pattern, workloads, index).empty()) return;
  // A swept workload is one workload per value, "NAME@PARAM=VALUE": its base name alone
  // matches none of them, NAME@* matches them all.
  if (!is_glob(pattern)) {
    const std::string prefix = pattern + "@";
    auto swept = std::find_if(workloads.begin(), workloads.end(),
                              [&](const Workload& w) { return w.name.rfind(prefix, 0) == 0; });
    if (swept != workloads.end()) {
      r.diagnostics().error(r.value_location("workload"),
                            "gate workload '" + shown_text(pattern) +
                                "' matches no workload: a swept workload is named per value ('" +
                                shown_text(swept->name) + "', ...); '" + shown_text(prefix) +
                                "*' matches every value");
      return;
    }
  }
  std::string suggestion;
  if (index.suggestions_left > 0) {
    --index.suggestions_left;
    suggestion = did_you_mean(pattern, names_of(workloads));
  }
  r.diagnostics().error(r.value_location("workload"),
                        std::string(is_glob(pattern) ? "gate pattern '" : "gate workload '") +
                            shown_text(pattern) + "' matches no workload" + suggestion);
}

// Whether `pattern` matches one of the variants; reports it when not.
// A pattern that matches only a name of `unchecked` (an entry [compare] was refused at, or one it
// may have meant) is not reported: the error at [compare] is the one to fix.
bool check_variant_reference(TableReader& r, const std::string& pattern,
                             const std::vector<std::string>& variants,
                             const std::vector<std::string>& unchecked) {
  const bool matched = std::any_of(variants.begin(), variants.end(), [&](const std::string& v) {
    return workload_matches(pattern, v);
  });
  if (matched) return true;
  if (std::any_of(unchecked.begin(), unchecked.end(),
                  [&](const std::string& v) { return workload_matches(pattern, v); })) {
    return false;
  }
  std::vector<std::string_view> names(variants.begin(), variants.end());
  std::string all;
  for (const auto& v : variants) all += (all.empty() ? "" : ", ") + shown_text(v);
  r.diagnostics().error(
      r.value_location("variant"),
      std::string(is_glob(pattern) ? "gate variant pattern '" : "gate variant '") +
          shown_text(pattern) + "' matches no variant" + did_you_mean(pattern, names) +
          "; the scenario's variants: " + all);
  return false;
}

// The variants the gate judges: those its `variant` matches, and a paired gate's `against`
// (its figure is half of every pair).
bool variant_judged(const Gate& gate, const std::string& v) {
  return workload_matches(gate.variant, v) || gate.against == v;
}

// Why no worker that runs `w` in a variant the gate judges can measure the gate's metric, or "":
// the workload's `worker` ("builtin" unless it names a [worker_impls] entry) or, comparing
// workers, each judged variant (a worker's name). The bundled worker and the adapters measure
// less than a worker program may (bundled_worker_unmeasurable_reason,
// adapter_unmeasurable_reason).
std::string worker_unmeasurable_reason(const Gate& gate, const Workload& w,
                                       const Scenario& scenario) {
  std::vector<std::string> workers;
  if (scenario.compare_workers.empty()) workers.push_back(w.worker);
  for (const std::string& v : scenario.compare_workers) {
    if (variant_judged(gate, v)) workers.push_back(v);
  }
  for (const std::string& worker : workers) {
    std::string reason;
    if (worker == "builtin") {
      reason = bundled_worker_unmeasurable_reason(gate.metric, w);
    } else if (auto it = scenario.worker_impls.find(worker);
               it != scenario.worker_impls.end() && !it->second.adapter.empty()) {
      reason = adapter_unmeasurable_reason(gate.metric, it->second.adapter, worker);
      if (reason.empty()) {
        // The bundled router's routes define a body length; comparing routers, any variant's.
        bool bundled = scenario.router.impl == RouterImpl::kBuiltin;
        if (!scenario.compare_routers.empty()) {
          bundled =
              std::any_of(scenario.routers.begin(), scenario.routers.end(),
                          [](const auto& r) { return r.second.impl == RouterImpl::kBuiltin; });
        }
        reason = adapter_error_count_reason(gate.metric, it->second.adapter, worker,
                                            expected_response(w, bundled).body_bytes >= 0);
      }
    }
    if (!reason.empty()) return reason;
  }
  return "";
}

// Why the system under test of a variant the gate judges can never give the gate's metric, or
// "": [router], or comparing routers each judged variant's [routers.NAME].
std::string router_unmeasurable_reason(const Gate& gate, const Scenario& scenario) {
  if (scenario.compare_routers.empty()) {
    if (scenario.router.impl != RouterImpl::kExternal) return "";
    return external_router_unmeasurable_reason(gate.metric, "[router]");
  }
  for (const std::string& v : scenario.compare_routers) {
    auto it = scenario.routers.find(v);
    if (!variant_judged(gate, v) || it == scenario.routers.end() ||
        it->second.impl != RouterImpl::kExternal) {
      continue;
    }
    std::string reason = external_router_unmeasurable_reason(gate.metric, "[routers." + v + "]");
    if (!reason.empty()) return reason;
  }
  return "";
}

// A metric that no run of a workload the gate matches can measure (unmeasurable_reason: TLS
// handshakes of cleartext, ...; worker_unmeasurable_reason: connection setup of WAMP in the
// bundled worker, a percentile wrk does not print, ...; router_unmeasurable_reason: an external
// system's CPU) would be measured for nothing and then judged an error: the gate is refused
// here, naming the first such workload and why.
void check_measurable(TableReader& r, const Gate& gate, const Scenario& scenario,
                      const WorkloadIndex& index) {
  const Workload* first = nullptr;
  std::string why;
  size_t more = 0;
  const std::string router_reason = router_unmeasurable_reason(gate, scenario);
  for (const Workload* matched : matching(gate.workload, scenario.workloads, index)) {
    const Workload& w = *matched;
    std::string reason = router_reason;
    if (reason.empty()) reason = worker_unmeasurable_reason(gate, w, scenario);
    if (reason.empty()) reason = unmeasurable_reason(gate.metric, w);
    if (reason.empty()) continue;
    if (first == nullptr) {
      first = &w;
      why = std::move(reason);
    } else {
      ++more;
    }
  }
  if (first == nullptr) return;
  const std::string others = more == 0 ? std::string()
                                       : " (and " + std::to_string(more) + " more that '" +
                                             shown_text(gate.workload) + "' matches)";
  r.diagnostics().error(r.value_location("metric"),
                        "gate metric '" + gate.metric + "' can never be measured for workload '" +
                            shown_text(first->name) + "'" + others + ": " + why);
}

// against = "VARIANT": a paired gate, judged against another variant of the same run.
// `variant_refused`: the gate's `variant` was reported already (it matches nothing), so that it
// matches nothing but `against` is not said a second time.
// `unchecked`: as for check_variant_reference.
void read_against(TableReader& r, Gate& gate, const std::vector<std::string>& variants,
                  const std::vector<std::string>& unchecked, bool compared, bool variant_refused) {
  Diagnostics& diag = r.diagnostics();
  auto against = r.string("against");
  if (!against) return;
  std::string all;
  for (const auto& v : variants) all += (all.empty() ? "" : ", ") + shown_text(v);
  if (!compared) {
    diag.error(r.key_location("against"),
               "key 'against' judges one variant against another of the same run, and this "
               "scenario compares none ([compare] routers or workers)");
  } else if (std::find(variants.begin(), variants.end(), *against) == variants.end()) {
    if (std::find(unchecked.begin(), unchecked.end(), *against) != unchecked.end()) {
      gate.against = std::move(*against);
      return;
    }
    std::vector<std::string_view> names(variants.begin(), variants.end());
    diag.error(r.value_location("against"), "gate against '" + shown_text(*against) +
                                                "' is no variant" + did_you_mean(*against, names) +
                                                "; the scenario's variants: " + all);
  } else if (!variant_refused) {
    const bool judges_another = std::any_of(
        variants.begin(), variants.end(),
        [&](const std::string& v) { return v != *against && workload_matches(gate.variant, v); });
    if (!judges_another) {
      diag.error(r.key_location("against"),
                 "gate variant '" + shown_text(gate.variant) + "' matches no variant but '" +
                     shown_text(*against) +
                     "', the one it is judged against; the scenario's variants: " + all);
    }
  }
  gate.against = std::move(*against);
}

// test = "signed-rank" | "t": the paired gate's test; only a paired gate has one.
void read_paired_test(TableReader& r, Gate& gate) {
  if (!r.has("test")) return;
  if (!r.has("against")) {
    r.diagnostics().error(r.key_location("test"),
                          "key 'test' applies only to a paired gate (one with 'against')");
    return;
  }
  if (auto test = r.choice("test", {"signed-rank", "t"})) {
    gate.paired_test = *test == "t" ? PairedTest::kT : PairedTest::kSignedRank;
  }
}

Gate read_gate(TableReader& r, const std::vector<Workload>& workloads, WorkloadIndex& index,
               const std::vector<std::string>& variants, const std::vector<std::string>& unchecked,
               bool workloads_complete, bool compared, const Scenario& scenario) {
  Diagnostics& diag = r.diagnostics();
  Gate gate;
  gate.where = r.table_location();
  r.check_keys(kGateKeys, {});

  if (r.require("workload")) {
    if (auto pattern = r.string("workload")) {
      if (pattern->empty()) {
        diag.error(r.value_location("workload"), "key 'workload' must name a workload or a glob");
      } else if (workloads_complete) {
        // With broken workloads, a reference to one of them would be a second, false, error.
        check_workload_reference(r, *pattern, workloads, index);
      }
      gate.workload = std::move(*pattern);
    }
  }
  bool variant_refused = r.has("variant");
  if (auto variant = r.string("variant")) {
    if (variant->empty()) {
      diag.error(r.value_location("variant"), "key 'variant' must name a variant or a glob");
    } else {
      variant_refused = !check_variant_reference(r, *variant, variants, unchecked);
    }
    gate.variant = std::move(*variant);
  }
  std::optional<MetricKind> kind;
  if (r.require("metric")) {
    if (auto metric = r.string("metric")) {
      kind = metric_kind(*metric);
      if (!kind) {
        diag.error(r.value_location("metric"), "unknown metric '" + shown_text(*metric) + "'" +
                                                   did_you_mean(*metric, metric_names()) +
                                                   "; a gate can name one of: " + metric_list());
      }
      gate.metric = std::move(*metric);
    }
  }
  // After 'against' is read: a paired gate judges the variant it names too.
  auto check_figure = [&] {
    if (kind && workloads_complete && !gate.workload.empty()) {
      check_measurable(r, gate, scenario, index);
    }
  };

  // A change gate has keys of its own (change_gate_section.cc).
  if (read_gate_kind(r, gate, compared)) {
    check_figure();
    if (auto severity = r.choice("severity", {"critical", "warning"})) {
      gate.severity = *severity == "warning" ? GateSeverity::kWarning : GateSeverity::kCritical;
    }
    return gate;
  }

  // Exactly one of max, min, baseline (or, comparing variants, against) decides what kind of
  // gate this is. 'against' is a choice only in a scenario with [compare]: elsewhere the list
  // says where it belongs, and a gate that has it is told so at the key (read_against), not
  // a second time here.
  const std::string one_of = compared ? "'max', 'min', 'baseline' or 'against'"
                                      : "'max', 'min' or 'baseline' (or, in a scenario with "
                                        "[compare], 'against')";
  std::vector<std::string_view> present;
  for (std::string_view key : {"max", "min", "baseline", "against"}) {
    if (r.has(key) && (compared || key != "against")) present.push_back(key);
  }
  // A misspelt one ('baselin') is reported where it is written, once.
  const bool misspelt_kind =
      r.misspelt("max") || r.misspelt("min") || r.misspelt("baseline") || r.misspelt("against");
  if (present.empty() && !r.has("against") && !misspelt_kind) {
    diag.error(r.table_location(), "a gate needs exactly one of " + one_of + " " + r.context());
  } else if (present.size() > 1) {
    const bool range = present[0] == "max" && present[1] == "min";
    diag.error(r.key_location(present[1]),
               "a gate needs exactly one of " + one_of + ", got both '" + std::string(present[0]) +
                   "' and '" + std::string(present[1]) + "'" +
                   (range ? ": a gate has one bound; a range is two gates" : ""));
  }
  if (kind) {
    gate.max = read_bound(r, "max", *kind);
    gate.min = read_bound(r, "min", *kind);
    if (gate.metric == "errors.rate" || gate.metric == "worker.cpu_utilization") {
      check_ratio_bound(r, "max", gate.max, gate.metric);
      check_ratio_bound(r, "min", gate.min, gate.metric);
    }
  }

  // A stray 'against' (no [compare]) is refused at the key (read_against) and nothing else:
  // it makes no relative gate, and the keys of one beside it are not refused a second time.
  const bool stray_against = !compared && r.has("against");
  const bool relative = r.has("baseline") || (compared && r.has("against"));
  if (auto baseline = r.string("baseline")) {
    if (baseline->empty()) {
      diag.error(r.value_location("baseline"), "key 'baseline' is empty");
    } else if (std::string why = baseline_name_problem(*baseline); !why.empty()) {
      // The rule of `baseline add` and --promote: no baseline of another name can exist.
      diag.error(r.value_location("baseline"),
                 why + " (the rule of 'orchestrator baseline add' and --promote)");
    }
    gate.baseline = std::move(*baseline);
  }
  if (r.has("against")) read_against(r, gate, variants, unchecked, compared, variant_refused);
  check_figure();
  read_paired_test(r, gate);
  for (std::string_view key : {"max_regression", "alpha", "fail_when_underpowered"}) {
    if (!relative && !stray_against && !misspelt_kind && r.has(key)) {
      diag.error(r.key_location(key), "key '" + std::string(key) +
                                          "' applies only to a relative gate (one with 'baseline'" +
                                          (compared ? " or 'against'" : "") + ")");
    }
  }
  if (relative) {
    if (!r.has("max_regression")) {
      if (!r.misspelt("max_regression")) {
        diag.error(r.table_location(),
                   "a relative gate needs key 'max_regression' (such as \"5%\") " + r.context());
      }
    } else if (auto v = r.percent("max_regression")) {
      if (*v <= 0) {
        diag.error(r.value_location("max_regression"), "key 'max_regression' must be more than 0%");
      }
      gate.max_regression = *v;
    }
    if (auto alpha = r.number("alpha", 0)) {
      if (*alpha <= 0 || *alpha >= 1) {
        diag.error(r.value_location("alpha"),
                   "key 'alpha' must be between 0 and 1 (such as "
                   "0.01), exclusive");
      }
      gate.alpha = *alpha;
    }
    if (auto strict = r.boolean("fail_when_underpowered")) gate.fail_when_underpowered = *strict;
  }
  if (auto severity = r.choice("severity", {"critical", "warning"})) {
    gate.severity = *severity == "warning" ? GateSeverity::kWarning : GateSeverity::kCritical;
  }
  return gate;
}

}  // namespace

std::vector<Gate> read_gates(TableReader& top, const std::vector<Workload>& workloads,
                             const std::vector<std::string>& variants,
                             const std::vector<std::string>& unchecked, bool workloads_complete,
                             bool compared, const Scenario& scenario, bool keep_refused) {
  std::vector<Gate> out;
  const toml::node* node = top.node("gates");
  if (!node) return out;
  if (!node->is_array_of_tables()) {
    top.diagnostics().error(node->source(),
                            "key 'gates' must be an array of tables ([[gates]]), got " +
                                std::string(toml_type_name(*node)));
    return out;
  }
  // A stored run's gates each keep their messages, all of them.
  WorkloadIndex workload_index(workloads, keep_refused ? SIZE_MAX : Diagnostics::kMaxListed);
  size_t index = 0;
  for (const toml::node& element : *node->as_array()) {
    ++index;
    const std::string context = "in [[gates]] #" + std::to_string(index);
    if (!keep_refused) {
      TableReader r(*element.as_table(), context, top.diagnostics(), top.interpolator());
      out.push_back(read_gate(r, workloads, workload_index, variants, unchecked, workloads_complete,
                              compared, scenario));
      continue;
    }
    // A stored run's gate: what the loader says of it refuses the gate, not the load.
    Diagnostics refusals(top.diagnostics().file());
    TableReader r(*element.as_table(), context, refusals, top.interpolator());
    Gate gate = read_gate(r, workloads, workload_index, variants, unchecked, workloads_complete,
                          compared, scenario);
    for (const Diagnostic& d : refusals.take()) {
      if (!gate.refused.empty()) gate.refused += "; ";
      if (d.where.line != 0) gate.refused += "line " + std::to_string(d.where.line) + ": ";
      gate.refused += d.message;
    }
    out.push_back(std::move(gate));
  }
  return out;
}

}  // namespace benchgate::scenario
