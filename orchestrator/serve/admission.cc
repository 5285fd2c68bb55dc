// See admission.h.
#include "orchestrator/serve/admission.h"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <string_view>

#include "common/net/host_port.h"
#include "common/security/token.h"
#include "common/util/shown_text.h"
#include "orchestrator/app/router_port_clash.h"
#include "orchestrator/processes/child_process.h"
#include "orchestrator/scenario/http_url.h"
#include "orchestrator/scenario/scenario_loader.h"
#include "orchestrator/serve/client_paths.h"
#include "orchestrator/serve/run_bound.h"

namespace benchgate::serve {
namespace fs = std::filesystem;
namespace {

Admission from_load(scenario::LoadResult loaded) {
  Admission out;
  if (loaded.ok()) {
    out.scenario = std::move(loaded.scenario);
    return out;
  }
  out.refusal = Refusal::kInvalid;
  for (const auto& d : loaded.diagnostics) out.message += d.format() + "\n";
  if (out.message.empty()) out.message = "the scenario is invalid\n";
  return out;
}

// The file a program name would start (as ChildProcess::spawn finds it: a bare name on
// PATH), its folder with symlinks, "." and ".." resolved, so two spellings of one program
// compare equal (/bin/nginx and /usr/sbin/../sbin/nginx where /bin links to /usr/bin). The
// name itself is not followed: a multi-call binary (busybox, toybox) picks what it does from
// the name it is started as, so `sh` and `wget` linking to one busybox are two programs. A
// program that is not found stays as written.
std::string resolved_program(const std::string& program) {
  const auto found = processes::find_executable(program);
  const fs::path path = found ? *found : fs::path(program);
  if (!path.has_parent_path()) return path.string();
  std::error_code ec;
  const fs::path folder = fs::weakly_canonical(path.parent_path(), ec);
  return ec ? path.string() : (folder / path.filename()).string();
}

// Calls `visit(command, what, where)` for every command a run of the scenario spawns as the
// scenario holds it (a program and its arguments, never empty): a command system under test's
// ([router], [routers.NAME]) and a [worker_impls.NAME] command's. An adapter's tool is not
// among them: it is one of a fixed set of names (h2load, wrk), resolved once as the service
// starts (resolve_adapter_programs), whose file the bundled worker runs; `requires` programs
// are only looked up.
template <typename ScenarioT, typename Visit>
void for_each_spawned_command(ScenarioT& s, Visit&& visit) {
  auto router = [&](auto& config, const std::string& section) {
    if (config.impl == scenario::RouterImpl::kCommand && !config.command.empty()) {
      visit(config.command, section + " command", config.at("command"));
    }
  };
  router(s.router, "[router]");
  for (auto& [name, config] : s.routers) router(config, "[routers." + name + "]");
  for (auto& [name, impl] : s.worker_impls) {
    if (!impl.command.empty()) {
      visit(impl.command, "[worker_impls." + name + "] command", impl.command_where);
    }
  }
}

// `visit(program, what, where)` for the program of every command for_each_spawned_command
// visits.
template <typename ScenarioT, typename Visit>
void for_each_spawned_program(ScenarioT& s, Visit&& visit) {
  for_each_spawned_command(s, [&](auto& command, const std::string& what, const auto& where) {
    visit(command.front(), what, where);
  });
}

// The HOST:PORT a metrics URL reaches, as the scrape connects to it (localhost read as
// 127.0.0.1, port 80 when none is written), and as the URL writes it where that differs
// (localhost:9113): an operator who allowed either meant this address. The loader refused a
// URL the scrape cannot use.
Reach metrics_reach(const std::string& url, const std::string& what, scenario::Location where) {
  auto parsed = scenario::parse_http_url(url);
  if (!parsed) return {url, what, std::move(where)};
  const std::string port = std::to_string(parsed->port);
  Reach out{parsed->host + ":" + port, what, std::move(where)};
  const std::string written = net::join_host_port(
      net::split_host_optional_port(parsed->authority, parsed->port, net::kDialMinPort).host,
      parsed->port);
  if (written != out.value) out.written = written;
  return out;
}

void add_router(const scenario::RouterConfig& router, const std::string& section,
                std::vector<Reach>& programs, std::vector<Reach>& addresses) {
  // Only a command or external system names a metrics endpoint (the loader refuses it on the
  // bundled router); checked for whatever impl the loader let through.
  if (!router.metrics.empty()) {
    addresses.push_back(metrics_reach(router.metrics, section + " metrics", router.at("metrics")));
  }
  // `requires` only looks programs up on PATH, but whether the variant is not_configured
  // tells the client whether a file exists on this machine: the same rule applies, to every
  // impl (the loader takes `requires` on a builtin variant too).
  const bool command = router.impl == scenario::RouterImpl::kCommand && !router.command.empty();
  for (const std::string& program : router.requires_programs) {
    if (!command || program != router.command.front()) {
      programs.push_back({program, section + " requires", router.at("requires")});
    }
  }
  if (router.impl == scenario::RouterImpl::kBuiltin) return;
  if (command) {
    programs.push_back({router.command.front(), section + " command", router.at("command")});
  }
  if (!router.address.empty()) {
    addresses.push_back({router.address, section + " address", router.at("address")});
  }
  // The workers of a WAMP workload connect to these instead of `address`.
  for (const auto& [value, key] : {std::pair{&router.rawsocket_address, "rawsocket_address"},
                                   std::pair{&router.websocket_address, "websocket_address"}}) {
    if (!value->empty()) addresses.push_back({*value, section + " " + key, router.at(key)});
  }
  if (router.ready.starts_with("tcp://") && router.ready.substr(6) != router.address) {
    addresses.push_back({router.ready.substr(6), section + " ready", router.at("ready")});
  }
}

// The programs and addresses of every system under test of the scenario.
void collect(const scenario::Scenario& scenario, std::vector<Reach>& programs,
             std::vector<Reach>& addresses) {
  add_router(scenario.router, "[router]", programs, addresses);
  for (const auto& [name, router] : scenario.routers) {
    add_router(router, "[routers." + name + "]", programs, addresses);
  }
  for (const auto& [name, impl] : scenario.worker_impls) {
    const std::string section = "[worker_impls." + name + "]";
    if (!impl.command.empty()) {
      programs.push_back({impl.command.front(), section + " command", impl.command_where});
    } else if (!impl.adapter.empty()) {
      // The bundled worker runs the tool the service resolved as it started: a program like
      // any other.
      programs.push_back({impl.adapter, section + " adapter", impl.command_where, "", true});
    }
  }
}

// A scenario of the folder as its clients know it: by its file name. The loader read it by
// its full path (so that ${scenario_dir} and the files it names resolve); every place that
// names the file, and the diagnostics, would show clients the service's folder.
void relabel(scenario::Location& where, const std::string& path, const std::string& shown) {
  if (where.file == path) where.file = shown;
}

void relabel(scenario::RouterConfig& router, const std::string& path, const std::string& shown) {
  relabel(router.where, path, shown);
  for (auto& [key, where] : router.key_where) relabel(where, path, shown);
}

void relabel(scenario::Scenario& s, const std::string& path, const std::string& shown) {
  s.path = shown;
  relabel(s.router, path, shown);
  for (auto& [name, router] : s.routers) relabel(router, path, shown);
  for (auto& w : s.workloads) relabel(w.where, path, shown);
  for (auto& g : s.gates) relabel(g.where, path, shown);
  for (auto& [name, impl] : s.worker_impls) {
    relabel(impl.where, path, shown);
    relabel(impl.command_where, path, shown);
  }
  relabel(s.workers.where, path, shown);
  relabel(s.workers.at_where, path, shown);
}

std::string error_line(const Reach& reach, const std::string& message) {
  return scenario::Diagnostic{reach.where, message}.format() + "\n";
}

// The bundled worker's options that pick the program it runs in place of its own engine. An
// adapter's tool is the file the service resolved as it started, given by the service alone:
// a submitted command that carried them would run, as the worker an operator allowed, whatever
// file it named (`--adapter-program /any/file`) or the tool found on PATH now (`--adapter`).
// Refused in every submitted command, whatever its program: a copy or link of the worker
// under another name takes them just the same.
std::optional<std::string> adapter_option_in(const std::vector<std::string>& command) {
  for (size_t i = 1; i < command.size(); ++i) {
    for (const std::string_view option : {"--adapter", "--adapter-program"}) {
      const std::string_view arg = command[i];
      if (arg == option ||
          (arg.starts_with(option) && arg.size() > option.size() && arg[option.size()] == '=')) {
        return std::string(option);
      }
    }
  }
  return std::nullopt;
}

void add_adapter_option_errors(const scenario::Scenario& s, std::string& out) {
  for_each_spawned_command(s, [&](const std::vector<std::string>& command, const std::string& what,
                                  const scenario::Location& where) {
    if (auto option = adapter_option_in(command)) {
      out += error_line({*option, what, where},
                        what + " carries '" + *option +
                            "': a submitted scenario may not choose the program an adapter runs "
                            "(write `adapter = \"h2load\"` or `adapter = \"wrk\"` in "
                            "[worker_impls.NAME]: the service runs the tool it resolved as it "
                            "started); nothing was started");
    }
  });
}

}  // namespace

std::vector<Reach> programs_started(const scenario::Scenario& scenario) {
  std::vector<Reach> programs, addresses;
  collect(scenario, programs, addresses);
  return programs;
}

std::vector<Reach> addresses_reached(const scenario::Scenario& scenario) {
  std::vector<Reach> programs, addresses;
  collect(scenario, programs, addresses);
  return addresses;
}

bool command_allowed(const std::string& program, const std::vector<std::string>& allowed) {
  const std::string wanted = resolved_program(program);
  return std::any_of(allowed.begin(), allowed.end(),
                     [&](const std::string& a) { return resolved_program(a) == wanted; });
}

Expected<std::map<std::string, AdapterProgram>> resolve_adapter_programs(
    const std::vector<std::string>& allowed) {
  std::map<std::string, AdapterProgram> out;
  for (const std::string tool : {"h2load", "wrk"}) {
    std::string chosen, chosen_from;
    for (const std::string& entry : allowed) {
      const fs::path file = resolved_program(entry);
      if (!file.is_absolute() || file.filename() != tool || file == chosen) continue;
      if (!chosen.empty()) {
        return Error{"--allow-command '" + shown_text(chosen_from) + "' and '" + shown_text(entry) +
                     "' are two " + tool + " programs ('" + shown_text(chosen) + "', '" +
                     shown_text(file.string()) +
                     "'): an adapter runs one; allow only the one it should run"};
      }
      chosen = file.string();
      chosen_from = entry;
    }
    if (!chosen.empty()) {
      out[tool] = {chosen, true};
    } else if (const std::string found = resolved_program(tool); fs::path(found).is_absolute()) {
      out[tool] = {found, false};
    }
  }
  return out;
}

void pin_programs(scenario::Scenario& scenario) {
  for_each_spawned_program(scenario,
                           [](std::string& program, const std::string&, const scenario::Location&) {
                             program = resolved_program(program);
                           });
}

std::optional<std::string> program_changed_since_admitted(const scenario::Scenario& scenario,
                                                          const std::vector<std::string>& allowed) {
  std::optional<std::string> why;
  for_each_spawned_program(scenario, [&](const std::string& program, const std::string& what,
                                         const scenario::Location&) {
    if (why) return;
    const std::string now = resolved_program(program);
    if (now == program && command_allowed(program, allowed)) return;
    why = what + " '" + shown_text(program) +
          "' was allowed by --allow-command when the scenario was submitted and " +
          (now == program ? "is not allowed now"
                          : "names another file now ('" + shown_text(now) + "')") +
          "; nothing was started: submit the scenario again";
  });
  return why;
}

bool address_allowed(const std::string& address, const scenario::Scenario& scenario,
                     const std::vector<std::string>& allowed) {
  if (std::find(allowed.begin(), allowed.end(), address) != allowed.end()) return true;
  // HOST:PORT as every benchgate address is read (common/net/host_port.h): "127.0.0.1:080" is
  // port 80, and a value that is not HOST:PORT reaches no loopback port.
  const net::HostPortSplit split = net::split_host_port(address, net::kDialMinPort);
  if (!split.ok() || !security::is_loopback_host(split.host)) return false;
  return std::any_of(scenario.ports.begin(), scenario.ports.end(),
                     [&](const auto& allocated) { return allocated.second == split.port; });
}

std::vector<std::string> workers_not_allowed(const scenario::Scenario& scenario,
                                             const std::vector<std::string>& worker_addresses) {
  std::vector<std::string> out;
  for (const auto& entry : scenario.workers.at) {
    if (std::find(worker_addresses.begin(), worker_addresses.end(), entry) ==
        worker_addresses.end()) {
      out.push_back(entry);
    }
  }
  return out;
}

std::string policy_violations(const scenario::Scenario& scenario, const AdmissionPolicy& policy) {
  std::string out;
  for (const auto& entry : workers_not_allowed(scenario, policy.worker_addresses)) {
    out += error_line({entry, "[workers] at", scenario.workers.at_where},
                      "[workers] at '" + entry +
                          "' is not one of this service's workers (a submitted scenario may "
                          "only name workers the service was started with, --workers-at); "
                          "nothing was started");
  }
  for (const Reach& program : programs_started(scenario)) {
    if (program.adapter_tool) {
      const auto tool = policy.adapter_programs.find(program.value);
      if (tool != policy.adapter_programs.end() && tool->second.allowed) continue;
    } else if (command_allowed(program.value, policy.allowed_commands)) {
      continue;
    }
    out += error_line(program, program.what + " '" + program.value +
                                   "' is not allowed by this service (it runs only commands "
                                   "named with --allow-command); nothing was started");
  }
  add_adapter_option_errors(scenario, out);
  for (const Reach& address : addresses_reached(scenario)) {
    if (address_allowed(address.value, scenario, policy.allowed_addresses)) continue;
    if (!address.written.empty() &&
        std::find(policy.allowed_addresses.begin(), policy.allowed_addresses.end(),
                  address.written) != policy.allowed_addresses.end()) {
      continue;
    }
    out += error_line(address,
                      address.what + " '" + address.value +
                          "' is not allowed by this service (a submitted scenario reaches only "
                          "loopback ports it allocates with ${port:NAME} and the addresses "
                          "named with --allow-address); nothing was started");
  }
  if (auto clash = app::router_port_clash(scenario, policy.own_listeners)) {
    const std::string what = clash->section + " " + clash->key;
    out += error_line({clash->value, what, clash->where},
                      what + " '" + shown_text(clash->value) +
                          "' is on the port of this service's own listener (serve " + clash->flag +
                          " " + clash->address +
                          "): a submitted scenario's router may not listen there, nor its "
                          "load, probes and scrapes reach the service; nothing was started");
  }
  return out;
}

Admission admit_by_name(const std::string& name, const AdmissionPolicy& policy) {
  // The name is the client's and is quoted back: bounded as a submitted file's name is, and
  // escaped (a line break or an escape sequence must not reach the client's terminal as such).
  if (name.size() > kMaxFileNameBytes) {
    return {std::nullopt, Refusal::kInvalid,
            "error: the scenario name sent is " + std::to_string(name.size()) +
                " bytes long; at most " + std::to_string(kMaxFileNameBytes) +
                " are accepted (it names a file in the service's scenarios folder)\n"};
  }
  if (name.empty() || name.find('/') != std::string::npos || name.find('\\') != std::string::npos ||
      name.front() == '.') {
    return {std::nullopt, Refusal::kNotFound,
            "scenario name '" + shown_text(name) +
                "' must be a file name in the service's scenarios folder"};
  }
  const std::string file = name.size() > 5 && name.ends_with(".toml") ? name : name + ".toml";
  const fs::path path = fs::path(policy.scenarios_dir) / file;
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) {
    return {std::nullopt, Refusal::kNotFound,
            "no scenario '" + shown_text(name) + "' in the service's scenarios folder"};
  }
  // The name was looked at above; what is read is judged again on the open descriptor, so a FIFO
  // put in the file's place in between is refused, not waited on.
  scenario::LoadOptions regular_only;
  regular_only.regular_file_only = true;
  scenario::LoadResult loaded = scenario::load_scenario_file(path.string(), regular_only);
  // Paths in the messages: beside the scenario as the folder was given ("scen/auth.json"),
  // through ${scenario_dir} absolute ("/home/op/scen/bin/x").
  const std::vector<std::string> folders = folder_spellings(policy.scenarios_dir);
  for (auto& d : loaded.diagnostics) {
    relabel(d.where, path.string(), file);
    d.message = without_folders(d.message, folders);
  }
  if (loaded.scenario) relabel(*loaded.scenario, path.string(), file);
  return from_load(std::move(loaded));
}

Admission admit_content(const std::string& file_name, const std::string& text,
                        const AdmissionPolicy& policy) {
  // The name is the client's and goes into every diagnostic and into the job's output: a
  // path's length at most, and nothing that would forge lines or reorder them there (the rule
  // of a commit and a label, prints_as_itself).
  if (file_name.size() > kMaxFileNameBytes) {
    return {std::nullopt, Refusal::kInvalid,
            "submitted.toml: error: the file name sent with it is " +
                std::to_string(file_name.size()) + " bytes long; at most " +
                std::to_string(kMaxFileNameBytes) + " are accepted\n"};
  }
  if (!prints_as_itself(file_name)) {
    return {std::nullopt, Refusal::kInvalid,
            "submitted.toml: error: the file name sent with it ('" + shown_text(file_name) +
                "') has a control character (a line break, a tab, an escape, a C1 control, a "
                "bidi control) or invalid UTF-8; none is accepted, as in a commit or a label\n"};
  }
  // Diagnostics name the client's file; ${scenario_dir} and ${env:NAME} are refused, as they
  // would read this machine for the client.
  const std::string shown = file_name.empty() ? "submitted.toml" : file_name;
  if (text.size() > kMaxSubmittedScenarioBytes) {
    return {std::nullopt, Refusal::kInvalid,
            shown + ": error: the scenario is " + std::to_string(text.size()) +
                " bytes; this service takes a submitted scenario of at most " +
                std::to_string(kMaxSubmittedScenarioBytes) + " bytes (" +
                std::to_string(kMaxSubmittedScenarioBytes >> 20) +
                " MiB); nothing was started: shorten it, or run it from the service's "
                "--scenarios folder\n"};
  }
  scenario::LoadOptions options;
  options.submitted = true;
  options.max_workloads = kMaxSubmittedWorkloads;
  options.max_gates = kMaxSubmittedGates;
  Admission admitted = from_load(scenario::load_scenario_text(text, shown, options));
  if (!admitted.scenario) return admitted;
  std::string violations = policy_violations(*admitted.scenario, policy);
  if (!violations.empty()) return {std::nullopt, Refusal::kDenied, std::move(violations)};
  // The service runs one job at a time: a client's timeouts must not hold it past the
  // operator's bound, nor its routers and workers start more processes at once than the
  // operator allows (the bundled workers run on --workers-at's machines where it is given).
  std::string too_much =
      longer_than_allowed(*admitted.scenario, policy.max_run_ns) +
      more_processes_than_allowed(*admitted.scenario, !policy.worker_addresses.empty(),
                                  policy.max_processes);
  if (!too_much.empty()) return {std::nullopt, Refusal::kInvalid, std::move(too_much)};
  // The job waits in the queue, and the client's symlinks, a /proc/PID/cwd or the service's
  // PATH may name another file by the time it starts: it spawns the very file checked.
  pin_programs(*admitted.scenario);
  return admitted;
}

std::vector<scenario::Scenario> scenarios_in(const std::string& dir, std::string& problems) {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.is_regular_file() && entry.path().extension() == ".toml") {
      files.push_back(entry.path().string());
    }
  }
  std::sort(files.begin(), files.end());
  std::vector<scenario::Scenario> out;
  scenario::LoadOptions regular_only;  // as admit_by_name reads a file: never a FIFO
  regular_only.regular_file_only = true;
  for (const auto& file : files) {
    Admission a = from_load(scenario::load_scenario_file(file, regular_only));
    if (a.scenario) {
      // Run as a job, as one run by name is: its output names the file, not the folder.
      relabel(*a.scenario, file, fs::path(file).filename().string());
      out.push_back(std::move(*a.scenario));
    } else {
      problems += a.message;
    }
  }
  return out;
}

std::string promotion_refusal(const std::string& promote, const std::vector<std::string>& allowed,
                              const std::string& field) {
  if (promote.empty() || std::ranges::find(allowed, promote) != allowed.end()) return "";
  // Why it is the operator's to allow: a client's run in a baseline moves the bar of every
  // run judged against it.
  const std::string why =
      "a baseline is what relative gates judge against, the service's own scenarios' included";
  const std::string asked = "'" + shown_text(promote) + "'";
  if (allowed.empty()) {
    return "field '" + field + "': this service lets no client promote its run, to " + asked +
           " or any baseline (" + why +
           "; its operator allows one with serve --allow-promote BASELINE); nothing was "
           "submitted: submit without --promote";
  }
  std::string names;
  for (const auto& name : allowed) names += (names.empty() ? "'" : ", '") + shown_text(name) + "'";
  return "field '" + field + "': this service lets its clients promote runs only to " + names +
         " (serve --allow-promote), not to " + asked + " (" + why +
         "); nothing was submitted: submit without --promote, or with one of those";
}

std::string files_with_one_name(const std::vector<scenario::Scenario>& scenarios) {
  for (size_t i = 0; i < scenarios.size(); ++i) {
    for (size_t j = i + 1; j < scenarios.size(); ++j) {
      if (scenarios[i].name != scenarios[j].name) continue;
      return "the --scenarios folder's files " + scenarios[i].path + " and " + scenarios[j].path +
             " are both scenario '" + shown_text(scenarios[i].name) +
             "': --every would run them as one scenario, mixing their runs' history and "
             "metrics; give each file a name of its own";
    }
  }
  return "";
}

}  // namespace benchgate::serve
