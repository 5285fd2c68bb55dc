// `orchestrator serve`: its flags, checked before anything starts, then app::serve.
#include "orchestrator/cli/serve_command.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <string>
#include <tuple>

#include "common/net/owner_only_socket.h"
#include "common/security/token.h"
#include "common/units/units.h"
#include "common/util/baseline_name.h"
#include "common/util/shown_text.h"
#include "orchestrator/app/bundled_binary.h"
#include "orchestrator/app/serve.h"
#include "orchestrator/cli/binary_flags.h"
#include "orchestrator/cli/db_busy_timeout.h"
#include "orchestrator/cli/exit_codes.h"
#include "orchestrator/cli/worker_token.h"
#include "orchestrator/processes/child_process.h"
#include "orchestrator/scenario/dial_address.h"
#include "orchestrator/serve/admission.h"

namespace benchgate::cli {
namespace {

// A repeatable flag's values, each once, in the order first given: a name given twice would be
// listed twice where the service names what it allows (the --allow-promote refusal), and checked
// twice against every submission.
std::vector<std::string> each_once(const std::vector<std::string>& given) {
  std::vector<std::string> out;
  for (const std::string& value : given) {
    if (std::find(out.begin(), out.end(), value) == out.end()) out.push_back(value);
  }
  return out;
}

}  // namespace

void add_serve_command(CLI::App& app, ServeFlags& flags) {
  auto* serve = app.add_subcommand(
      "serve", "Run as a service: accept runs over gRPC, one at a time, and serve /metrics");
  serve
      ->add_option("--listen", flags.listen,
                   "gRPC Orchestrator service address: HOST:PORT, or unix:PATH (a Unix socket, "
                   "made owner-only; an empty PATH is refused)")
      // "unix:" alone would be an abstract socket, which any local user may connect to.
      ->check([](const std::string& value) {
        return net::unix_address_without_path(value).value_or("");
      })
      ->capture_default_str();
  serve
      ->add_option("--metrics-listen", flags.metrics_listen,
                   "Prometheus /metrics address HOST:PORT (an IPv6 host in brackets: "
                   "[::1]:9464)")
      ->capture_default_str();
  serve->add_option("--http", flags.http_listen,
                    "Serve read-only web pages (runs, reports, the live job, histories) at "
                    "http://HOST:PORT/; off unless given, e.g. 127.0.0.1:7780 or [::1]:7780");
  serve->add_option("--db", flags.db_path, "SQLite database of every run")->capture_default_str();
  add_db_busy_timeout_option(*serve, flags.db_busy_timeout);
  serve
      ->add_option("--scenarios", flags.scenarios_dir,
                   "Folder of scenario files that clients may run by name (`run --server ADDR "
                   "--scenario-name NAME`)")
      ->required()
      ->check(CLI::ExistingDirectory);
  serve->add_option("--every", flags.every,
                    "Rerun every scenario of the folder this often (e.g. 1h; units ns, us, ms, "
                    "s, m, h): continuous benchmarking; two files with one scenario name are "
                    "refused at start");
  serve->add_option("--allow-command", flags.allowed_commands,
                    "A program a submitted scenario may start: a [router] or [routers.NAME] "
                    "command, a [worker_impls.NAME] command or adapter tool, or look up as "
                    "[routers.NAME] requires (repeatable; a path or a name on PATH, refused at "
                    "start when it is no executable file). No other program is ever started for "
                    "a client, and a queued job starts the file checked at submission, by its "
                    "resolved path");
  serve->add_option("--allow-address", flags.allowed_addresses,
                    "A HOST:PORT a submitted scenario may reach (address, ready, metrics of "
                    "its system under test; repeatable; refused at start when not HOST:PORT). "
                    "Without it a client reaches only loopback ports its scenario allocates with "
                    "${port:NAME}");
  serve->add_option("--allow-promote", flags.allowed_promotions,
                    "A baseline a client may add its run to (run --server --promote BASELINE; "
                    "repeatable; refused at start when not a baseline name). Without it a "
                    "submission that asks to promote is refused (PERMISSION_DENIED) before "
                    "anything is queued: relative gates judge against baselines, this "
                    "service's own scenarios' included");
  serve
      ->add_option("--max-queued", flags.max_queued,
                   "Runs that may wait behind the running one; a submission past that is "
                   "refused (RESOURCE_EXHAUSTED) until one starts, and more files at once than "
                   "this (run --server) are refused as a mistake (INVALID_ARGUMENT)")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  serve
      ->add_option("--keep-finished", flags.keep_finished,
                   "Ended runs the service keeps listed and watchable, newest first (their "
                   "results stay in the database); a failed run's child process logs are kept "
                   "as long as it is listed")
      ->check(CLI::Range(0, 1000000))
      ->capture_default_str();
  serve
      ->add_option("--keep-output-bytes", flags.keep_output_bytes,
                   "Bytes of each job's output (and status events) the service keeps for its "
                   "watchers; past that the oldest go, and a watcher that missed them is told "
                   "how many bytes were dropped")
      ->check(CLI::Range(4096, 1 << 30))
      ->capture_default_str();
  serve
      ->add_option("--keep-output-total-bytes", flags.keep_output_total_bytes,
                   "Bytes of output (and status events) the ended jobs keep together; past that "
                   "the oldest ended jobs' output goes first (their final status stays), and a "
                   "watcher that missed it is told how many bytes were dropped")
      ->check(CLI::Range(size_t{4096}, size_t{1} << 40))
      ->capture_default_str();
  serve
      ->add_option("--max-run-seconds", flags.max_run_seconds,
                   "The longest a submitted scenario may hold the service's run slot: one whose "
                   "timeouts (every workload's timeout times its runs, plus the startup_timeouts "
                   "it sets) add up to more is refused (INVALID_ARGUMENT), and its run still "
                   "going then is stopped as a cancel stops it")
      ->check(CLI::Range(int64_t{1}, int64_t{366} * 24 * 3600))
      ->capture_default_str();
  serve
      ->add_option("--max-processes", flags.max_processes,
                   "The most processes a submitted scenario's run may have running at once on "
                   "this machine: one per router it starts (every compared router), and per "
                   "worker implementation the largest `workers` of its workloads (an adapter's "
                   "worker with its tool counts two; the bundled worker's none with "
                   "--workers-at); one that would have more is refused (INVALID_ARGUMENT)")
      ->check(CLI::Range(size_t{1}, size_t{1000000}))
      ->capture_default_str();
  serve
      ->add_option("--metrics-scenarios", flags.metrics_scenarios,
                   "Scenarios whose Prometheus series /metrics keeps, the most recently run; an "
                   "older scenario's series go when another starts, and each keeps only the "
                   "workloads of its latest run. At start, the gate verdicts, exit code and run "
                   "info of this many scenarios' latest runs in --db are restored")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  serve->add_option("--router-bin", flags.router_binary, kServeRouterBinHelp);
  serve->add_option("--worker-bin", flags.worker_binary, kWorkerBinHelp);
  add_remote_worker_options(*serve, flags.workers);
}

int serve_command(const ServeFlags& flags) {
  auto busy_timeout_ms = parse_db_busy_timeout(flags.db_busy_timeout);
  if (!busy_timeout_ms) {
    std::fprintf(stderr, "error: %s\n", busy_timeout_ms.message().c_str());
    return kExitInvalidInput;
  }
  int64_t every_ns = 0;
  if (!flags.every.empty()) {
    auto every = parse_duration_ns(flags.every);
    if (!every || *every <= 0) {
      // The parser's words name the units it takes ("unknown duration unit 'd' in '1d' ...").
      std::fprintf(stderr, "error: --every '%s': %s\n", shown_text(flags.every).c_str(),
                   every ? "expected a positive duration such as 1h (units: ns, us, ms, s, m, h)"
                         : every.message().c_str());
      return kExitInvalidInput;
    }
    every_ns = *every;
  }
  // An allowed program that cannot be started, or an allowed address that is not one, is the
  // operator's typo: the service would start and refuse (or fail) every run meant to use it.
  for (const auto& command : flags.allowed_commands) {
    if (command.empty() || !processes::find_executable(command)) {
      std::fprintf(stderr,
                   "error: --allow-command '%s': no executable program there (a path, or a name "
                   "on PATH)\n",
                   shown_text(command).c_str());
      return kExitInvalidInput;
    }
  }
  // The rule a scenario's [router] address, ready and metrics are read by (TCP only).
  for (const auto& address : flags.allowed_addresses) {
    if (auto valid = scenario::check_dial_address("--allow-address", address, {}); !valid) {
      std::fprintf(stderr, "error: %s\n", valid.message().c_str());
      return kExitInvalidInput;
    }
  }
  // A name no baseline can have would allow nothing: the operator's typo, said now.
  for (const auto& baseline : flags.allowed_promotions) {
    if (std::string why = baseline_name_reason(baseline); !why.empty()) {
      std::fprintf(stderr, "error: --allow-promote %s\n", why.c_str());
      return kExitInvalidInput;
    }
  }
  // The service's scenarios may name their own [workers] at; --workers alone needs --workers-at.
  auto workers_wait = check_workers_flags(flags.workers.count, flags.workers.wait,
                                          !flags.workers.addresses.empty());
  if (!workers_wait) {
    std::fprintf(stderr, "error: %s\n", workers_wait.message().c_str());
    return kExitInvalidInput;
  }
  auto worker_token = token_for_workers(flags.workers.token_file, flags.workers.addresses, stderr);
  if (!worker_token) {
    std::fprintf(stderr, "error: %s\n", worker_token.message().c_str());
    return kExitInvalidInput;
  }
  // The router and the worker a job starts, found as a job finds them (the flag, the
  // environment variable, next to the orchestrator, PATH), are checked now: a service that
  // could not start one would say READY, then fail every run that needs it. One found by flag,
  // by variable or next to the orchestrator is the one every job starts, and must start. One
  // found nowhere (a bare name for PATH, which has none) refuses the service only when the
  // --scenarios folder's scenarios need it: a service whose scenarios run external systems
  // under test on remote workers never starts it, and is told which submissions will fail.
  std::string unloaded;  // the folder's invalid files: said by the rounds and jobs that run them
  const std::vector<scenario::Scenario> folder = serve::scenarios_in(flags.scenarios_dir, unloaded);
  // Each --every round submits every file: two of one name would be one scenario's series.
  if (every_ns > 0) {
    if (const std::string same = serve::files_with_one_name(folder); !same.empty()) {
      std::fprintf(stderr, "error: %s\n", same.c_str());
      return kExitInvalidInput;
    }
  }
  const app::NeededBinaries needed = app::needed_binaries(folder, !flags.workers.addresses.empty());
  for (const auto& [given, name, env, needed_by_folder] :
       {std::tuple{&flags.router_binary, "router", "BENCHGATE_ROUTER_BIN", needed.router},
        std::tuple{&flags.worker_binary, "worker", "BENCHGATE_WORKER_BIN", needed.worker}}) {
    const app::BinaryChoice choice = app::choose_bundled_binary(*given, name, env);
    auto usable = app::check_binary(choice, std::string(name) + " executable");
    if (usable) continue;
    if (choice.origin == "PATH" && !needed_by_folder) {
      std::fprintf(stderr,
                   "warning: %s; no scenario of the --scenarios folder needs it, but a submitted "
                   "scenario that does will fail\n",
                   usable.message().c_str());
      continue;
    }
    std::fprintf(stderr, "error: %s\n", usable.message().c_str());
    return kExitInvalidInput;
  }
  for (const auto& address : {flags.listen, flags.metrics_listen, flags.http_listen}) {
    // A Unix socket (unix:PATH) is not reachable from other machines.
    if (address.empty() || address.starts_with("unix:")) continue;
    // Not HOST:PORT (no host): refused as serve starts, with the reason, not warned about.
    const std::string host = security::host_of(address);
    if (!host.empty() && !security::is_loopback_host(host)) {
      std::fprintf(stderr,
                   "warning: %s is reachable from other machines, and serve has no "
                   "authentication (README \"Security\")\n",
                   address.c_str());
    }
  }
  return app::serve({flags.listen,
                     flags.metrics_listen,
                     flags.http_listen,
                     flags.db_path,
                     flags.scenarios_dir,
                     every_ns,
                     each_once(flags.allowed_commands),
                     each_once(flags.allowed_addresses),
                     each_once(flags.allowed_promotions),
                     {flags.max_queued, flags.keep_finished, flags.keep_output_bytes,
                      flags.keep_output_total_bytes},
                     flags.max_run_seconds * 1'000'000'000,
                     flags.max_processes,
                     flags.metrics_scenarios,
                     {flags.router_binary, flags.worker_binary, flags.workers.addresses,
                      *worker_token, flags.workers.count, *workers_wait},
                     {.busy_timeout_ms = *busy_timeout_ms}});
}

}  // namespace benchgate::cli
