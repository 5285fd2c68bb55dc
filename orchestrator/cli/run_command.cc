// `orchestrator run`: its flags, checked before anything runs, then app::run_locally (or a
// service's, with --server); `orchestrator validate`.
#include "orchestrator/cli/run_command.h"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <system_error>

#include "common/util/shown_text.h"
#include "orchestrator/app/bundled_binary.h"
#include "orchestrator/app/local_run.h"
#include "orchestrator/app/router_port_clash.h"
#include "orchestrator/app/run_setup.h"
#include "orchestrator/cli/binary_flags.h"
#include "orchestrator/cli/db_busy_timeout.h"
#include "orchestrator/cli/exit_codes.h"
#include "orchestrator/cli/gate_command.h"
#include "orchestrator/cli/load_scenarios.h"
#include "orchestrator/cli/report_flags.h"
#include "orchestrator/grpc/channel.h"
#include "orchestrator/metrics/run_metrics.h"
#include "orchestrator/report/run_outputs.h"
#include "orchestrator/serve/remote_run.h"

namespace benchgate::cli {

Expected<std::map<std::string, std::string>> parse_labels(const std::vector<std::string>& items) {
  std::map<std::string, std::string> labels;
  for (const auto& item : items) {
    auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0) {
      return Error{"--label '" + shown_text(item) + "' must be KEY=VALUE"};
    }
    const std::string key = item.substr(0, eq);
    auto [given, added] = labels.emplace(key, item.substr(eq + 1));
    // A run stores one value a key: keeping the last would drop the other one silently.
    if (!added) {
      return Error{"--label key '" + shown_text(key) + "' is given twice ('" +
                   shown_text(key + "=" + given->second) + "' and '" + shown_text(item) +
                   "'): a key takes one value; give it once"};
    }
  }
  return labels;
}

void add_run_command(CLI::App& app, RunFlags& flags) {
  auto* run = app.add_subcommand("run",
                                 "Run scenario files: start the system under test and "
                                 "the workers, measure, store, evaluate gates");
  // No CLI::ExistingFile check: the loader names a missing file or a folder, for `run` and
  // `validate` alike.
  // A pipe is read too (<(generate), /dev/stdin; docs/SCENARIOS.md): the description stays
  // short, as the missing-argument error quotes it.
  // Not required: `run --server ADDR --scenario-name NAME` sends none (run_command checks).
  run->add_option("files", flags.files, "Scenario files (TOML)");
  run->add_option("--db", flags.db_path, "SQLite database of every run")->capture_default_str();
  add_db_busy_timeout_option(*run, flags.db_busy_timeout);
  run->add_option("--json", flags.json_path, "Write every result to this JSON file");
  run->add_option("--junit", flags.junit_path, "Write gate verdicts as JUnit XML");
  run->add_option("--markdown", flags.markdown_path, "Write a Markdown summary");
  run->add_option("--html", flags.html_path,
                  "Write a self-contained HTML report of every run (charts inline, nothing "
                  "fetched; the same as `orchestrator report RUN`)");
  run->add_option("--commit", flags.commit, "Commit measured (default: the git work tree's)");
  run->add_option("--branch", flags.branch, "Branch measured (default: the git work tree's)");
  // One label a flag: a word after it is a scenario file (`run --label k=v s.toml` took s.toml
  // for a second label and said the run had no file).
  run->add_option("--label", flags.labels,
                  "Label the run KEY=VALUE (one label to each --label; repeatable)")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->allow_extra_args(false);
  run->add_option(
      "--promote", flags.promote,
      "Add the run to this baseline when it exits 0 (completed, no critical gate failed); with "
      "several scenarios, every run only when the whole invocation exits 0 (none after an "
      "interrupt); with --server the same (one file's run promoted by the service, several "
      "files' together through its Promote call once every job ended), into a baseline the "
      "service's --allow-promote names");
  run->add_option(
      "--baseline", flags.baseline,
      "Evaluate every relative gate against this baseline instead of its own; a name with no run "
      "of the scenario while other baselines have one is warned of before the load, naming them "
      "(not with --promote of the same name, which seeds it)");
  run->add_flag("--strict", flags.strict, kStrictHelp);
  run->add_option("--router-bin", flags.router_binary, kRouterBinHelp);
  run->add_option("--worker-bin", flags.worker_binary, kWorkerBinHelp);
  add_remote_worker_options(*run, flags.workers);
  run->add_flag("--keep-logs", flags.keep_logs, "Keep the children's stderr logs");
  run->add_option("--metrics-listen", flags.metrics_listen,
                  "Serve Prometheus metrics at http://HOST:PORT/metrics during the run (an IPv6 "
                  "host in brackets: [::1]:9464); refused on a port a command or external "
                  "router of the scenario listens on");
  run->add_option("--metrics-linger", flags.metrics_linger,
                  "Keep /metrics up this long after the run (e.g. 30s; Ctrl-C ends it); needs "
                  "--metrics-listen")
      ->capture_default_str();
  run->add_option("--server", flags.server,
                  "Submit the files to `orchestrator serve` at HOST:PORT and stream its output "
                  "(the results stay there: --db, --json, --junit, --markdown and the other "
                  "flags of a local run are refused with it); each file is checked first as "
                  "the service checks a client's (no key that names a file, no ${env:NAME})");
  run->add_option("--scenario-name", flags.scenario_names,
                  "With --server: run this scenario of the service's --scenarios folder, by its "
                  "file name with or without .toml (repeatable; after the files given); the "
                  "service runs its own file, which a client cannot change")
      ->allow_extra_args(false);
  run->add_option("--pushgateway", flags.pushgateway,
                  "Push the final metrics to this Prometheus Pushgateway (http://HOST:PORT); a "
                  "failed push is a warning and leaves the exit code as it is");
  // The service runs the scenario and keeps its results; only its output streams back.
  for (const char* name :
       {"--db", "--db-busy-timeout", "--json", "--junit", "--markdown", "--html", "--router-bin",
        "--worker-bin", "--workers-at", "--workers", "--workers-wait", "--worker-token-file",
        "--keep-logs", "--metrics-listen", "--metrics-linger", "--pushgateway"}) {
    CLI::Option* option = run->get_option(name);
    option->each([&flags, option](const std::string&) {
      const std::string given = option->get_name();
      if (flags.local_only.empty() || flags.local_only.back() != given) {
        flags.local_only.push_back(given);
      }
    });
  }
}

namespace {

// Why a flag of a local run cannot go with --server (one line, for the error).
std::string not_with_server(const std::string& flag) {
  if (flag == "--json" || flag == "--junit" || flag == "--markdown" || flag == "--html") {
    return flag +
           " cannot be used with --server: only the run's output streams back, not its "
           "results; the service stores them in its database (read them there with "
           "`orchestrator runs show RUN` or `orchestrator gate RUN`)";
  }
  if (flag == "--db" || flag == "--db-busy-timeout") {
    return flag +
           " cannot be used with --server: the service stores the run in its own database "
           "(`orchestrator serve --db`, `--db-busy-timeout`)";
  }
  if (flag == "--worker-token-file") {
    return "--worker-token-file is not sent to a --server; give it to `orchestrator serve` "
           "instead";
  }
  return flag + " cannot be used with --server: the service runs the scenario with its own " +
         "settings (give it to `orchestrator serve` where it has one)";
}

}  // namespace

serve::JobOptions job_options(const RunFlags& flags, std::map<std::string, std::string> labels) {
  // By name, not by position: JobOptions grows fields between these (a deferred promote did).
  serve::JobOptions job;
  job.commit = flags.commit;
  job.branch = flags.branch;
  job.labels = std::move(labels);
  job.baseline = flags.baseline;
  job.promote = flags.promote;
  job.strict = flags.strict;
  return job;
}

int run_command(const RunFlags& flags) {
  if (!flags.scenario_names.empty() && flags.server.empty()) {
    std::fprintf(stderr,
                 "error: --scenario-name runs a scenario of an `orchestrator serve` service's "
                 "--scenarios folder and needs --server; to run a file here, name the file\n");
    return kExitInvalidInput;
  }
  if (flags.files.empty() && flags.scenario_names.empty()) {
    // As CLI11's missing argument reads (usage_mistakes.h); --help says --scenario-name.
    std::fprintf(stderr,
                 "error: `orchestrator run` needs its files argument: scenario files (TOML); see "
                 "`orchestrator run --help`\n");
    return kExitInvalidInput;
  }
  // `--label a=b c=d` gives c=d as a file (one label to each --label): said so, rather than
  // that no scenario file has that name.
  for (const std::string& file : flags.files) {
    std::error_code ec;
    if (file.find('=') != std::string::npos && !std::filesystem::exists(file, ec) && !ec) {
      std::fprintf(stderr,
                   "error: '%s' is no scenario file (none has that name); a label is given as "
                   "--label KEY=VALUE, one to each --label\n",
                   shown_text(file).c_str());
      return kExitInvalidInput;
    }
  }
  // A scenario bound for a service is loaded as the service loads one a client sends: keys
  // that name a file (ca_file, tls_cert, tls_key, secret_file, auth_config), ${env:NAME} and
  // ${scenario_dir} are refused in its words, not judged against this machine's files (a
  // missing file, or one that holds no PEM certificate, where the service refuses the key).
  scenario::LoadOptions load_options;
  load_options.submitted = !flags.server.empty();
  auto loaded = load_all(flags.files, stderr, load_options);
  if (!loaded.scenarios) return loaded.exit_code;
  auto& scenarios = loaded.scenarios;
  auto labels = parse_labels(flags.labels);
  if (!labels) {
    std::fprintf(stderr, "error: %s\n", labels.message().c_str());
    return kExitInvalidInput;
  }
  if (!flags.server.empty() && !flags.local_only.empty()) {
    std::fprintf(stderr, "error: %s\n", not_with_server(flags.local_only.front()).c_str());
    return kExitInvalidInput;
  }
  // Every flag is checked before anything runs: a mistake found after the run (a baseline name
  // --promote cannot use) would cost the whole run and exit 3 for a usage error.
  const serve::JobOptions job = job_options(flags, *labels);
  if (auto valid = serve::check_job_options(job); !valid) {
    std::fprintf(stderr, "error: %s\n", valid.message().c_str());
    return kExitInvalidInput;
  }
  auto busy_timeout_ms = parse_db_busy_timeout(flags.db_busy_timeout);
  if (!busy_timeout_ms) {
    std::fprintf(stderr, "error: %s\n", busy_timeout_ms.message().c_str());
    return kExitInvalidInput;
  }
  const report::OutputPaths outputs{flags.json_path, flags.junit_path, flags.markdown_path,
                                    flags.html_path};
  // local_only lists the report flags given (with others check_report_flags ignores).
  if (auto valid = check_report_flags(flags.local_only, outputs); !valid) {
    std::fprintf(stderr, "error: %s\n", valid.message().c_str());
    return kExitInvalidInput;
  }
  const metrics::RunMetricsOptions metrics_options{flags.metrics_listen, flags.pushgateway,
                                                   flags.metrics_linger};
  if (auto valid = metrics::RunMetrics::validate(metrics_options); !valid) {
    std::fprintf(stderr, "error: %s\n", valid.message().c_str());
    return kExitInvalidInput;
  }
  // Before the database or any process: a bad token file costs nothing.
  auto remote = check_remote_worker_flags(flags.workers, *scenarios, stderr);
  if (!remote) {
    std::fprintf(stderr, "error: %s\n", remote.message().c_str());
    return kExitInvalidInput;
  }
  if (!flags.server.empty()) {
    if (auto valid = grpcutil::check_dial_address("--server", flags.server); !valid) {
      std::fprintf(stderr, "error: %s\n", valid.message().c_str());
      return kExitInvalidInput;
    }
    // The commit and branch a local run would store (app::set_up_run), found here: the
    // service's folder is not the client's work tree.
    serve::JobOptions submitted = job;
    // What git gave is checked as the service checks a submission (the flags were, above): a
    // branch with a control character would be refused there naming a field the user never
    // gave. Here the error says it came from git, and which flag sends another value.
    auto revision = app::checked_revision(job.commit, job.branch, app::RevisionUse::kSent);
    if (!revision) {
      std::fprintf(stderr, "error: %s\n", revision.message().c_str());
      return kExitInvalidInput;
    }
    submitted.commit = std::move(revision->commit);
    submitted.branch = std::move(revision->branch);
    // The texts as loaded: a file is not opened twice (a pipe would be empty the second time).
    std::vector<serve::SubmittedFile> files;
    for (const auto& scenario : *scenarios) files.push_back({scenario.path, scenario.text});
    for (const auto& name : flags.scenario_names) files.push_back({name, "", true});
    return serve::remote_run({flags.server, std::move(files), std::move(submitted)});
  }
  // The run's /metrics listens from the start to the end of every scenario: a router on its
  // port fails one of the two later, with an error that names neither. One given port 0 is
  // compared once it listens, on the kernel's port (app::run_locally).
  for (const scenario::Scenario& scenario : *scenarios) {
    if (auto clash = app::router_on_an_orchestrator_port(
            scenario, {{"--metrics-listen", flags.metrics_listen}})) {
      std::fprintf(stderr, "error: %s\n", clash->c_str());
      return kExitInvalidInput;
    }
  }
  // Before the store or any process: a wrong path would otherwise start the router, fail the
  // run and store it (exit 3) for what is a usage mistake.
  if (auto usable = app::check_needed_binaries(*scenarios, flags.router_binary, flags.worker_binary,
                                               !flags.workers.addresses.empty());
      !usable) {
    std::fprintf(stderr, "error: %s\n", usable.message().c_str());
    return kExitInvalidInput;
  }
  app::LocalRun run;
  run.setup = {flags.db_path,
               flags.commit,
               flags.branch,
               *labels,
               {flags.router_binary, flags.worker_binary, flags.workers.addresses, remote->token,
                flags.workers.count, remote->wait_ns}};
  run.setup.store.busy_timeout_ms = *busy_timeout_ms;
  run.policy = {flags.baseline, flags.promote, flags.strict};
  run.outputs = outputs;
  run.metrics = metrics_options;
  run.keep_logs = flags.keep_logs;
  return app::run_locally(*scenarios, run);
}

void add_validate_command(CLI::App& app, std::vector<std::string>& files) {
  auto* validate = app.add_subcommand(
      "validate",
      "Check scenario files without running anything (exit 0 valid, 2 invalid, 3 interrupted: "
      "Ctrl-C while a pipe is read)");
  validate->add_option("files", files, "Scenario files (TOML)")->required();
}

int validate_command(const std::vector<std::string>& files) {
  auto loaded = load_all(files, stderr);
  if (!loaded.scenarios) return loaded.exit_code;
  auto& scenarios = loaded.scenarios;
  for (const auto& scenario : *scenarios) {
    std::printf("%s: ok (scenario %s, %zu workload%s, %zu gate%s)\n", scenario.path.c_str(),
                scenario.name.c_str(), scenario.workloads.size(),
                scenario.workloads.size() == 1 ? "" : "s", scenario.gates.size(),
                scenario.gates.size() == 1 ? "" : "s");
  }
  return kExitOk;
}

}  // namespace benchgate::cli
