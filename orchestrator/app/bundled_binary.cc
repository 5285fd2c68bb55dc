// See bundled_binary.h.
#include "orchestrator/app/bundled_binary.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <set>

#include "common/util/shell_words.h"
#include "orchestrator/processes/child_process.h"
#include "orchestrator/store/binary_identity.h"

namespace benchgate::app {

BinaryChoice choose_bundled_binary(const std::string& given, const std::string& name,
                                   const char* env_override) {
  if (!given.empty()) return {given, "--" + name + "-bin"};
  if (const char* value = std::getenv(env_override); value && *value) {
    return {value, std::string("$") + env_override};
  }
  std::error_code ec;
  auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    auto candidate = self.parent_path() / name;
    if (std::filesystem::exists(candidate)) return {candidate.string(), "next to the orchestrator"};
  }
  return {name, "PATH"};
}

std::string bundled_binary(const std::string& given, const std::string& name,
                           const char* env_override) {
  return choose_bundled_binary(given, name, env_override).path;
}

Expected<void> check_binary(const BinaryChoice& choice, const std::string& what) {
  const std::string named =
      what + " '" + choice.path + "' (" +
      (choice.origin == "PATH" || choice.origin.starts_with("next") ? choice.origin
                                                                    : "from " + choice.origin) +
      ")";
  if (choice.path.find('/') == std::string::npos) {
    // Spawned through the PATH lookup (processes::find_executable), as a name without a slash
    // given to --NAME-bin is too.
    if (processes::find_executable(choice.path)) return {};
    if (choice.origin == "PATH") {
      return Error{what + " '" + choice.path +
                   "' is neither next to the orchestrator nor on PATH: give its path with "
                   "--" +
                   choice.path + "-bin"};
    }
    return Error{named + ": no executable of that name on PATH"};
  }
  // In the words of a command's program path (processes::program_file_problem).
  if (auto why = processes::program_file_problem(choice.path)) return Error{named + ": " + *why};
  return {};
}

bool spawns_bundled_worker(const std::string& worker_bin_flag) {
  const char* env = std::getenv("BENCHGATE_WORKER_BIN");
  return worker_bin_flag.empty() && (env == nullptr || *env == '\0');
}

namespace {

// Whether the bundled worker runs `impl`: an adapter whose tool is installed (the engine
// reports one without its tool as not_configured and starts nothing, worker_impl_spawn.cc).
bool adapter_runs(const scenario::Scenario& s, const std::string& impl) {
  auto found = s.worker_impls.find(impl);
  return found != s.worker_impls.end() && !found->second.adapter.empty() &&
         processes::find_executable(found->second.adapter).has_value();
}

NeededBinaries needed_by(const scenario::Scenario& s, bool workers_at) {
  NeededBinaries needed;
  const bool remote = workers_at || !s.workers.at.empty();
  if (!s.compare_routers.empty()) {
    for (const auto& name : s.compare_routers) {
      auto found = s.routers.find(name);
      if (found != s.routers.end() && found->second.impl == scenario::RouterImpl::kBuiltin) {
        needed.router = true;
      }
    }
  } else {
    needed.router = s.router.impl == scenario::RouterImpl::kBuiltin;
  }
  if (!s.compare_workers.empty()) {
    for (const auto& impl : s.compare_workers) {
      if ((impl == "builtin" && !remote) || adapter_runs(s, impl)) needed.worker = true;
    }
    return needed;
  }
  for (const auto& w : s.workloads) {
    // A comparison of routers runs each workload with its own `worker`, as a plain run does
    // (comparison_runner.cc).
    const bool builtin = w.worker == "builtin";
    if ((builtin && !remote && w.workers > 0) || (!builtin && adapter_runs(s, w.worker))) {
      needed.worker = true;
    }
  }
  return needed;
}

// The [worker_impls] names whose own program (`command`, not an adapter) runs some workload of
// `s` (or a variant of its [compare] workers), each once, in name order.
std::set<std::string> spawned_worker_commands(const scenario::Scenario& s) {
  std::set<std::string> names;
  auto add = [&](const std::string& impl) {
    auto found = s.worker_impls.find(impl);
    if (found != s.worker_impls.end() && !found->second.command.empty()) names.insert(impl);
  };
  if (!s.compare_workers.empty()) {
    for (const auto& impl : s.compare_workers) add(impl);
  } else {
    for (const auto& w : s.workloads) {
      if (w.workers > 0) add(w.worker);
    }
  }
  return names;
}

}  // namespace

NeededBinaries needed_binaries(const std::vector<scenario::Scenario>& scenarios, bool workers_at) {
  NeededBinaries needed;
  for (const auto& s : scenarios) {
    const NeededBinaries own = needed_by(s, workers_at);
    needed.router = needed.router || own.router;
    needed.worker = needed.worker || own.worker;
  }
  return needed;
}

Expected<void> check_needed_binaries(const std::vector<scenario::Scenario>& scenarios,
                                     const std::string& router_flag, const std::string& worker_flag,
                                     bool workers_at) {
  const NeededBinaries needed = needed_binaries(scenarios, workers_at);
  if (needed.router) {
    auto router = choose_bundled_binary(router_flag, "router", "BENCHGATE_ROUTER_BIN");
    if (auto usable = check_binary(router, "router executable"); !usable) return usable;
  }
  if (needed.worker) {
    auto worker = choose_bundled_binary(worker_flag, "worker", "BENCHGATE_WORKER_BIN");
    if (auto usable = check_binary(worker, "worker executable"); !usable) return usable;
  }
  return {};
}

std::vector<store::MeasuredBinary> measured_binaries(const scenario::Scenario& scenario,
                                                     const engine::EngineOptions& options) {
  std::vector<store::MeasuredBinary> out;
  const NeededBinaries needed = needed_by(scenario, !options.worker_addresses.empty());
  // A name without a slash is looked up on PATH when spawned: the file found there.
  auto resolved = [](const std::string& path) -> std::optional<std::string> {
    auto found = processes::find_executable(path);
    if (!found) return std::nullopt;
    return found->string();
  };
  if (needed.router && !options.router_binary.empty()) {
    if (auto path = resolved(options.router_binary)) {
      out.push_back(store::identify_binary("router", *path, options.router_origin));
    }
  }
  if (needed.worker && !options.worker_binary.empty()) {
    if (auto path = resolved(options.worker_binary)) {
      out.push_back(store::identify_binary("worker", *path, options.worker_origin));
    }
  }
  auto program = [&](const std::string& role, const std::vector<std::string>& argv) {
    if (argv.empty()) return;
    if (auto path = resolved(argv.front())) {
      store::MeasuredBinary binary = store::identify_binary(role, *path, "command");
      // What tells two variants of one program apart (docs/MEASUREMENT.md).
      binary.arguments = shell_words({argv.begin() + 1, argv.end()});
      out.push_back(std::move(binary));
    }
  };
  auto command = [&](const std::string& role, const scenario::RouterConfig& router) {
    if (router.impl == scenario::RouterImpl::kCommand) program(role, router.command);
  };
  if (scenario.compare_routers.empty()) {
    command("command", scenario.router);
  } else {
    for (const auto& name : scenario.compare_routers) {
      if (auto found = scenario.routers.find(name); found != scenario.routers.end()) {
        command("command " + name, found->second);
      }
    }
  }
  // An adapter's program is the bundled worker, recorded above as "worker".
  for (const auto& name : spawned_worker_commands(scenario)) {
    program("worker " + name, scenario.worker_impls.at(name).command);
  }
  return out;
}

std::string foreign_router_warning(const std::vector<scenario::Scenario>& scenarios,
                                   const std::string& router_flag, bool workers_at,
                                   bool commit_given, bool branch_given) {
  if (commit_given && branch_given) return "";
  if (!needed_binaries(scenarios, workers_at).router) return "";
  const BinaryChoice router = choose_bundled_binary(router_flag, "router", "BENCHGATE_ROUTER_BIN");
  if (store::bundled_origin(router.origin)) return "";
  std::string missing = !commit_given && !branch_given ? "--commit and --branch"
                        : !commit_given                ? "--commit"
                                                       : "--branch";
  std::string which = !commit_given && !branch_given ? "commit and branch"
                      : !commit_given                ? "commit"
                                                     : "branch";
  return "warning: the router measured is " + router.path + " (from " + router.origin +
         "), not this build, but the run stores this working folder's " + which +
         "; give the router's with " + missing;
}

}  // namespace benchgate::app
