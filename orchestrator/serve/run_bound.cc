// See run_bound.h.
#include "orchestrator/serve/run_bound.h"

#include <algorithm>
#include <limits>
#include <set>

#include "common/units/units.h"
#include "orchestrator/scenario/scenario_loader.h"
#include "orchestrator/scenario/workload_glob.h"

namespace benchgate::serve {
namespace {

using scenario::Scenario;

// In double: a client's timeouts times its repetitions can exceed 64 bits.
int64_t clamped(double ns) {
  return ns >= static_cast<double>(std::numeric_limits<int64_t>::max())
             ? std::numeric_limits<int64_t>::max()
             : static_cast<int64_t>(ns);
}

// How many times the workload runs under its own timeout.
double runs_of(const Scenario& s, const scenario::Workload& w) {
  const size_t variants = s.compare_routers.size() + s.compare_workers.size();
  if (variants > 0) {
    // Every window of every variant is a run of its own (engine/comparison_runner.cc).
    return static_cast<double>(variants) * static_cast<double>(w.repetitions);
  }
  const bool confirmed = std::any_of(s.gates.begin(), s.gates.end(), [&](const auto& gate) {
    return gate.confirm && scenario::workload_matches(gate.workload, w.name);
  });
  return confirmed ? 2 : 1;
}

// A startup_timeout the scenario sets, where it is written.
struct Startup {
  int64_t ns;
  std::string what;
  scenario::Location where;
};

// The startup_timeouts of what the run starts.
std::vector<Startup> startups(const Scenario& s) {
  std::vector<Startup> out;
  auto add_router = [&](const scenario::RouterConfig& r, const std::string& section) {
    if (r.startup_timeout_ns > 0) {
      out.push_back({r.startup_timeout_ns, section + " startup_timeout", r.at("startup_timeout")});
    }
  };
  if (s.compare_routers.empty()) {
    add_router(s.router, "[router]");
  } else {
    for (const auto& name : s.compare_routers) {
      if (auto it = s.routers.find(name); it != s.routers.end()) {
        add_router(it->second, "[routers." + name + "]");
      }
    }
  }
  std::set<std::string> used(s.compare_workers.begin(), s.compare_workers.end());
  for (const auto& w : s.workloads) used.insert(w.worker);
  for (const auto& [name, impl] : s.worker_impls) {
    if (used.count(name) != 0 && impl.startup_timeout_ns > 0) {
      out.push_back(
          {impl.startup_timeout_ns, "[worker_impls." + name + "] startup_timeout", impl.where});
    }
  }
  return out;
}

std::string seconds_text(int64_t ns) { return std::to_string(ns / 1'000'000'000) + " s"; }

std::string error_line(const scenario::Location& where, const std::string& message) {
  return scenario::Diagnostic{where, message}.format() + "\n";
}

}  // namespace

int64_t run_bound_ns(const Scenario& s) {
  double total = 0;
  for (const auto& w : s.workloads) total += static_cast<double>(w.timeout_ns) * runs_of(s, w);
  for (const auto& startup : startups(s)) total += static_cast<double>(startup.ns);
  return clamped(total);
}

std::string longer_than_allowed(const Scenario& s, int64_t max_ns) {
  const std::string limit = "this service's --max-run-seconds (" + seconds_text(max_ns) + ")";
  std::string out;
  for (const auto& startup : startups(s)) {
    if (startup.ns <= max_ns) continue;
    out += error_line(startup.where, startup.what + " = " +
                                         format_duration_ns(static_cast<double>(startup.ns)) +
                                         " is longer than " + limit);
  }
  for (const auto& w : s.workloads) {
    if (w.timeout_ns <= max_ns) continue;
    out += error_line(w.where, "workload '" + w.name + "' timeout = " +
                                   format_duration_ns(static_cast<double>(w.timeout_ns)) +
                                   " is longer than " + limit);
  }
  // Each timeout fits: the run's bound is named once, where it passes the limit. The startups
  // come first: past the limit on their own, no workload is to blame (nor needed).
  const int64_t bound = run_bound_ns(s);
  if (!out.empty() || bound <= max_ns) return out;
  double total = 0;
  for (const auto& startup : startups(s)) {
    total += static_cast<double>(startup.ns);
    if (total <= static_cast<double>(max_ns)) continue;
    return error_line(startup.where, startup.what + " makes the startup_timeouts set add up to " +
                                         format_duration_ns(total) + ", longer than " + limit +
                                         "; shorter startups fit");
  }
  for (const auto& w : s.workloads) {
    total += static_cast<double>(w.timeout_ns) * runs_of(s, w);
    if (total <= static_cast<double>(max_ns)) continue;
    return error_line(w.where, "workload '" + w.name + "' makes the run's bound " +
                                   format_duration_ns(static_cast<double>(bound)) +
                                   " (every workload's timeout times its runs, plus the "
                                   "startup_timeouts set), longer than " +
                                   limit + "; a shorter timeout or fewer runs fit");
  }
  return out;
}

}  // namespace benchgate::serve
