// See run_bound.h.
#include "orchestrator/serve/run_bound.h"

#include <algorithm>
#include <limits>
#include <set>
#include <string>
#include <vector>

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

// A router the run starts (impl = "external" included) and its section: [router], or every
// compared [routers.NAME].
struct RunRouter {
  const scenario::RouterConfig* config;
  std::string section;
};

std::vector<RunRouter> routers_of_the_run(const Scenario& s) {
  if (s.compare_routers.empty()) return {{&s.router, "[router]"}};
  std::vector<RunRouter> out;
  for (const auto& name : s.compare_routers) {
    if (auto it = s.routers.find(name); it != s.routers.end()) {
      out.push_back({&it->second, "[routers." + name + "]"});
    }
  }
  return out;
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
  for (const auto& [r, section] : routers_of_the_run(s)) {
    if (r->startup_timeout_ns > 0) {
      out.push_back(
          {r->startup_timeout_ns, section + " startup_timeout", r->at("startup_timeout")});
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

// Processes one thing the run starts keeps running: a router, or a pool of workers.
struct ProcessShare {
  size_t processes = 0;
  bool router = false;
  size_t tools = 0;  // of a pool's processes, the tools its adapter's workers run
  std::string what;  // "[routers.b]", "workload 'w' workers = 8 (worker 'wrk')"
  scenario::Location where;
};

// The first of the workloads `impl` runs (every one when null) with the most workers: the
// size of its pool.
const scenario::Workload* largest_pool_of(const Scenario& s, const std::string* impl) {
  const scenario::Workload* out = nullptr;
  for (const auto& w : s.workloads) {
    if (impl != nullptr && w.worker != *impl) continue;
    if (out == nullptr || w.workers > out->workers) out = &w;
  }
  return out;
}

// What the run starts, in the order it starts them (processes_at_once).
std::vector<ProcessShare> process_shares(const Scenario& s, bool remote_workers) {
  std::vector<ProcessShare> out;
  for (const auto& [r, section] : routers_of_the_run(s)) {
    if (r->impl != scenario::RouterImpl::kExternal) out.push_back({1, true, 0, section, r->where});
  }
  // The pool of `impl` as big as workload `w` needs: none for the bundled worker on the
  // service's --workers-at.
  auto add_pool = [&](const std::string& impl, const scenario::Workload* w,
                      const std::string& whose) {
    if (w == nullptr || w->workers == 0 || (impl == "builtin" && remote_workers)) return;
    const auto found = s.worker_impls.find(impl);
    const bool adapter = found != s.worker_impls.end() && !found->second.adapter.empty();
    const size_t workers = w->workers;
    out.push_back({adapter ? 2 * workers : workers, false, adapter ? workers : 0,
                   "workload '" + w->name + "' workers = " + std::to_string(workers) + whose,
                   w->where});
  };
  if (!s.compare_workers.empty()) {
    // Every compared worker's pool runs every workload.
    const scenario::Workload* largest = largest_pool_of(s, nullptr);
    for (const auto& name : s.compare_workers) {
      add_pool(name, largest, " (compared worker '" + name + "')");
    }
    return out;
  }
  std::vector<std::string> impls = {"builtin"};  // the bundled pool first, then by first use
  for (const auto& w : s.workloads) {
    if (std::find(impls.begin(), impls.end(), w.worker) == impls.end()) impls.push_back(w.worker);
  }
  for (const auto& impl : impls) {
    add_pool(impl, largest_pool_of(s, &impl),
             impl == "builtin" ? std::string() : " (worker '" + impl + "')");
  }
  return out;
}

std::string counted(size_t n, const std::string& what) {
  return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
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

size_t processes_at_once(const Scenario& s, bool remote_workers) {
  size_t total = 0;
  for (const auto& share : process_shares(s, remote_workers)) total += share.processes;
  return total;
}

std::string more_processes_than_allowed(const Scenario& s, bool remote_workers,
                                        size_t max_processes) {
  const std::vector<ProcessShare> shares = process_shares(s, remote_workers);
  size_t peak = 0, routers = 0, workers = 0, tools = 0;
  for (const auto& share : shares) {
    peak += share.processes;
    (share.router ? routers : workers) += share.processes - share.tools;
    tools += share.tools;
  }
  if (peak <= max_processes) return "";
  std::string parts = counted(routers, "router") + ", " + counted(workers, "worker");
  if (tools > 0) parts += ", " + counted(tools, "tool") + " their adapters run";
  size_t total = 0;
  for (const auto& share : shares) {
    total += share.processes;
    if (total <= max_processes) continue;
    return error_line(share.where, share.what + " makes the run have " + std::to_string(peak) +
                                       " processes at once (" + parts +
                                       "), more than this service's --max-processes (" +
                                       std::to_string(max_processes) +
                                       "); fewer workers or variants fit; nothing was started");
  }
  return "";
}

}  // namespace benchgate::serve
