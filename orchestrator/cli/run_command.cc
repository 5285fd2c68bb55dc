#include "orchestrator/cli/run_command.h"

#include <CLI/CLI.hpp>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include <unistd.h>

#include "orchestrator/app/interrupt.h"
#include "orchestrator/cli/exit_codes.h"
#include "orchestrator/cli/load_scenarios.h"
#include "orchestrator/cli/run_one.h"
#include "orchestrator/cli/store_recorder.h"
#include "orchestrator/cli/worker_token.h"
#include "orchestrator/engine/factories.h"
#include "orchestrator/engine/fan_out_observer.h"
#include "orchestrator/engine/scenario_runner.h"
#include "orchestrator/metrics/run_metrics.h"
#include "orchestrator/report/analysis.h"
#include "orchestrator/report/gate_report.h"
#include "orchestrator/report/html_report.h"
#include "orchestrator/report/json_report.h"
#include "orchestrator/report/result_line.h"
#include "orchestrator/report/terminal_report.h"
#include "orchestrator/serve/remote_run.h"
#include "orchestrator/store/git_revision.h"
#include "orchestrator/store/store.h"
#include "orchestrator/store/testbed.h"
#include "orchestrator/store/workload_params.h"

namespace benchgate::cli {
namespace fs = std::filesystem;

namespace {

// The bundled binaries live next to the orchestrator (build/bin/ or an install prefix).
std::string sibling_binary(const std::string& name, const char* env_override) {
  if (const char* value = std::getenv(env_override); value && *value) return value;
  std::error_code ec;
  auto self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    auto candidate = self.parent_path() / name;
    if (fs::exists(candidate)) return candidate.string();
  }
  return name;  // found on PATH, or a clear "not found" when spawning
}

// A private folder for the children's stderr logs; removed after a clean run.
std::string make_log_dir() {
  std::string pattern = (fs::temp_directory_path() / "benchgate-run-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) return fs::temp_directory_path().string();
  return pattern;
}

Expected<std::map<std::string, std::string>> parse_labels(const std::vector<std::string>& items) {
  std::map<std::string, std::string> labels;
  for (const auto& item : items) {
    auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0) {
      return Error{"--label '" + item + "' must be KEY=VALUE"};
    }
    labels[item.substr(0, eq)] = item.substr(eq + 1);
  }
  return labels;
}

// A report file that cannot be written would be found out only after the run, which is then
// stored with exit code 0 while the process exits 3: its folder is checked before anything.
Expected<void> check_output_path(const char* flag, const std::string& path) {
  if (path.empty()) return {};
  std::error_code ec;
  fs::path folder = fs::path(path).parent_path();
  if (folder.empty()) folder = ".";
  const std::string where = std::string(flag) + " " + path + ": ";
  if (fs::is_directory(path, ec)) return Error{where + "is a folder, not a file"};
  if (!fs::is_directory(folder, ec)) {
    return Error{where + "folder '" + folder.string() + "' does not exist"};
  }
  // A file is made and removed, as permission bits alone do not tell (root passes access() in
  // a read-only folder, /proc and /sys refuse new files to everyone).
  std::string probe = (folder / ".benchgate-write-check-XXXXXX").string();
  const int fd = ::mkstemp(probe.data());
  if (fd < 0) {
    std::string why = std::strerror(errno);
    if (!why.empty()) why[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(why[0])));
    return Error{where + "folder '" + folder.string() + "' is not writable (" + why + ")"};
  }
  ::close(fd);
  ::unlink(probe.c_str());
  return {};
}

// Whether a regular file lies anywhere under `dir`.
bool holds_a_file(const fs::path& dir) {
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_regular_file(ec)) return true;
  }
  return false;
}

std::vector<gating::WorkloadValues> workload_values(const engine::ScenarioResult& result) {
  std::vector<gating::WorkloadValues> values;
  for (const auto& w : result.workloads) {
    gating::WorkloadValues v;
    v.name = w.spec.name;
    v.variant = w.variant;
    v.params_hash = store::workload_params_hash(w.spec);
    v.status = results::status_name(w.status);
    v.error = w.error;
    for (const auto& rep : w.repetitions) {
      if (rep.stopped.empty()) continue;
      v.not_judged = gating::stopped_reason(rep.index, rep.stopped);
      break;
    }
    v.values = [&w](const std::string& metric) { return results::metric_values(w, metric); };
    v.figure = [&w](const std::string& metric) { return results::metric_figure(w, metric); };
    v.not_measured = [&w](const std::string& metric) {
      return results::not_measured_reason(w, metric);
    };
    values.push_back(std::move(v));
  }
  return values;
}

}  // namespace

// Declared in run_one.h: `serve` runs its jobs through it too.
report::ScenarioReport run_one(const scenario::Scenario& scenario, const RunFlags& flags,
                               const engine::EngineOptions& options, store::Store& db,
                               const store::RunInfo& info_template,
                               report::TerminalReport& terminal, engine::RunObserver* metrics) {
  report::ScenarioReport out;
  store::RunInfo info = info_template;
  info.scenario = scenario.name;
  info.scenario_text = scenario.text;
  auto run_id = db.begin_run(info);
  if (!run_id) {
    out.result.scenario = scenario.name;
    out.result.error = "cannot record the run: " + run_id.message();
    out.status = "failed";
    out.exit_code = kExitRunError;
    return out;
  }
  out.run_id = *run_id;
  StoreRecorder recorder(db, out.run_id,
                         [&terminal](const std::string& line) { terminal.message(line); });
  std::vector<engine::RunObserver*> observers{&terminal, &recorder};
  if (metrics != nullptr) observers.push_back(metrics);
  engine::FanOutObserver observer(std::move(observers));
  const auto started = std::chrono::steady_clock::now();
  out.result = engine::run_scenario(scenario, options, observer);
  out.duration_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                        std::chrono::steady_clock::now() - started)
                        .count();
  // A workload the database refused twice is not reported as stored: it becomes a failed
  // workload in every report (RESULT line, JSON, JUnit, Markdown), and the run fails.
  for (const auto& unstored : recorder.retry_pending()) {
    for (auto& w : out.result.workloads) {
      if (w.spec.name != unstored.name || w.variant != unstored.variant) continue;
      w.status = results::WorkloadStatus::kFailed;
      w.error = "measured, but not stored in the database: " + unstored.error +
                (w.error.empty() ? "" : "; " + w.error);
    }
    if (out.result.error.empty()) out.result.error = "cannot store results: " + unstored.error;
  }

  int64_t testbed_id = 0;
  if (auto stored = db.get_run(out.run_id)) testbed_id = stored->run.testbed_id;
  gating::GateContext context{&db, out.run_id, testbed_id, scenario.name, flags.baseline};
  auto values = workload_values(out.result);
  out.gates = gating::evaluate_gates(scenario.gates, values, context);
  std::vector<store::GateRecord> records;
  for (const auto& g : out.gates) records.push_back(gating::to_record(g));
  if (!records.empty()) {
    if (auto stored = db.store_gate_results(out.run_id, records); !stored) {
      out.result.error += (out.result.error.empty() ? "" : "; ") +
                          ("cannot store gate results: " + stored.message());
    }
  }

  const bool ran_ok = out.result.ok();
  out.exit_code = ran_ok ? gating::gates_exit_code(out.gates, flags.strict) : kExitRunError;
  out.status = out.result.interrupted ? "aborted" : (ran_ok ? "ok" : "failed");
  // Through `terminal`, which writes to the job's own output under `serve`: its client sees
  // these lines as a local run shows them (the process's stdout is the service's).
  const std::string run = std::to_string(out.run_id);
  if (auto finished = db.finish_run(out.run_id, out.status, out.exit_code,
                                    out.status == "ok" ? "" : out.result.error);
      !finished) {
    terminal.message("error: cannot finish run " + run + ": " + finished.message());
    out.exit_code = kExitRunError;
  } else if (out.status == "ok") {
    // Derived data: `history changes` computes a series whose stored analysis is behind.
    if (auto changes = db.update_change_points(out.run_id); !changes) {
      std::fprintf(stderr, "warning: %s\n", changes.message().c_str());
    } else if (metrics != nullptr) {
      // For the benchgate_change_* gauges: the scenario's series as stored now.
      store::ChangeSeriesFilter filter;
      filter.scenario = scenario.name;
      if (auto found = db.change_points(filter, store::Store::stored_change_options())) {
        out.changes = std::move(*found);
        out.changes_read = true;
      } else {
        std::fprintf(stderr, "warning: %s\n", found.message().c_str());
      }
    }
  }
  if (!flags.promote.empty()) {
    // Promotion follows the exit code: a run that would pass a pipeline joins the baseline.
    // A gate without a baseline yet (no_baseline) does not block the first promotion.
    if (ran_ok && out.exit_code == kExitOk) {
      if (auto added = db.add_baseline(flags.promote, out.run_id)) {
        terminal.print("promoted run " + run + " to baseline '" + flags.promote + "'");
      } else {
        terminal.message("error: cannot promote run " + run + ": " + added.message());
        out.exit_code = std::max(out.exit_code, kExitRunError);
      }
    } else {
      terminal.print("run " + run + " not promoted to '" + flags.promote +
                     "': " + (ran_ok ? "a critical gate failed" : "the run did not complete"));
    }
  }
  return out;
}

void print_scenario_end(const report::ScenarioReport& r, std::FILE* out, std::FILE* err) {
  std::fputs(report::gates_table(r.gates).c_str(), out);
  const std::string run = r.run_id ? std::to_string(r.run_id) : "-";
  // Comparison ratios and sweep models, then their machine-readable lines.
  std::fputs(report::analysis_text(r.result).c_str(), out);
  for (const auto& workload : r.result.workloads) {
    std::fprintf(out, "%s\n", report::result_line(r.result.scenario, workload, run).c_str());
  }
  for (const auto& c : report::comparisons(r.result)) {
    std::fprintf(out, "%s\n", report::comparison_line(r.result.scenario, c).c_str());
  }
  for (const auto& s : report::sweeps(r.result)) {
    std::fprintf(out, "%s\n", report::sweep_line(r.result.scenario, s).c_str());
  }
  std::fflush(out);
  if (!r.result.error.empty()) {
    std::fprintf(err, "error: scenario %s: %s\n", r.result.scenario.c_str(),
                 r.result.error.c_str());
  }
}

void add_run_command(CLI::App& app, RunFlags& flags) {
  auto* run = app.add_subcommand("run",
                                 "Run scenario files: start the system under test and "
                                 "the workers, measure, store, evaluate gates");
  // No CLI::ExistingFile check: the loader names a missing file or a folder, for `run` and
  // `validate` alike.
  run->add_option("files", flags.files, "Scenario files (TOML)")->required();
  run->add_option("--db", flags.db_path, "SQLite database of every run")->capture_default_str();
  run->add_option("--json", flags.json_path, "Write every result to this JSON file");
  run->add_option("--junit", flags.junit_path, "Write gate verdicts as JUnit XML");
  run->add_option("--markdown", flags.markdown_path, "Write a Markdown summary");
  run->add_option("--html", flags.html_path,
                  "Write a self-contained HTML report of every run (charts inline, nothing "
                  "fetched; the same as `orchestrator report RUN`)");
  run->add_option("--commit", flags.commit, "Commit measured (default: the git work tree's)");
  run->add_option("--branch", flags.branch, "Branch measured (default: the git work tree's)");
  run->add_option("--label", flags.labels, "Label the run KEY=VALUE (repeatable)");
  run->add_option(
      "--promote", flags.promote,
      "Add the run to this baseline when it exits 0 (completed, no critical gate failed)");
  run->add_option("--baseline", flags.baseline,
                  "Evaluate every relative gate against this baseline instead of its own");
  run->add_flag(
      "--strict", flags.strict,
      "Inconclusive, no_baseline, not_configured and underpowered verdicts also fail (exit 1)");
  run->add_option("--router-bin", flags.router_binary,
                  "Router executable (default: next to orchestrator, or $BENCHGATE_ROUTER_BIN)");
  run->add_option("--worker-bin", flags.worker_binary,
                  "Worker executable (default: next to orchestrator, or $BENCHGATE_WORKER_BIN)");
  run->add_option("--workers-at", flags.worker_addresses,
                  "Connect to running workers at HOST:PORT (repeat or comma-separate) "
                  "instead of spawning them")
      ->delimiter(',');
  run->add_option("--worker-token-file", flags.worker_token_file, kWorkerTokenFileHelp);
  run->add_flag("--keep-logs", flags.keep_logs, "Keep the children's stderr logs");
  run->add_option("--metrics-listen", flags.metrics_listen,
                  "Serve Prometheus metrics at http://HOST:PORT/metrics during the run");
  run->add_option("--metrics-linger", flags.metrics_linger,
                  "Keep /metrics up this long after the run (e.g. 30s; Ctrl-C ends it); needs "
                  "--metrics-listen")
      ->capture_default_str();
  run->add_option("--server", flags.server,
                  "Submit the files to `orchestrator serve` at HOST:PORT and stream its output "
                  "(the results stay there: --db, --json, --junit, --markdown and the other "
                  "flags of a local run are refused with it)");
  run->add_option("--pushgateway", flags.pushgateway,
                  "Push the final metrics to this Prometheus Pushgateway (http://HOST:PORT); a "
                  "failed push is a warning and leaves the exit code as it is");
  // The service runs the scenario and keeps its results; only its output streams back.
  for (const char* name : {"--db", "--json", "--junit", "--markdown", "--html", "--router-bin",
                           "--worker-bin", "--workers-at", "--worker-token-file", "--keep-logs",
                           "--metrics-listen", "--metrics-linger", "--pushgateway"}) {
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
  if (flag == "--db") {
    return "--db cannot be used with --server: the service stores the run in its own database "
           "(`orchestrator serve --db`)";
  }
  if (flag == "--worker-token-file") {
    return "--worker-token-file is not sent to a --server; give it to `orchestrator serve` "
           "instead";
  }
  return flag + " cannot be used with --server: the service runs the scenario with its own " +
         "settings (give it to `orchestrator serve` where it has one)";
}

}  // namespace

Expected<RunSetup> set_up_run(const RunFlags& flags,
                              const std::map<std::string, std::string>& labels,
                              const std::string& worker_token) {
  // The database is opened before anything is spawned: a bad path costs nothing.
  auto db = store::Store::open(flags.db_path);
  if (!db) return db.error();
  for (int64_t abandoned : (*db)->abandoned_runs()) {
    std::fprintf(stderr,
                 "note: run %lld was left running by an orchestrator that is gone; "
                 "marked abandoned\n",
                 static_cast<long long>(abandoned));
  }
  RunSetup setup;
  setup.db = std::move(*db);
  store::RunInfo& info = setup.info;
  info.commit = flags.commit;
  info.branch = flags.branch;
  info.labels = labels;
  info.testbed = store::detect_testbed();
  if (info.commit.empty() || info.branch.empty()) {
    if (auto git = store::detect_git_revision(fs::current_path().string())) {
      if (info.commit.empty()) info.commit = git->commit;
      if (info.branch.empty()) info.branch = git->branch;
    }
  }
  engine::EngineOptions& options = setup.options;
  options.factories = &engine::production_factories();
  options.router_binary = flags.router_binary.empty()
                              ? sibling_binary("router", "BENCHGATE_ROUTER_BIN")
                              : flags.router_binary;
  options.worker_binary = flags.worker_binary.empty()
                              ? sibling_binary("worker", "BENCHGATE_WORKER_BIN")
                              : flags.worker_binary;
  options.worker_addresses = flags.worker_addresses;
  options.worker_token = worker_token;
  options.authenticate_spawned_workers = spawns_bundled_worker(flags.worker_binary);
  options.log_dir = make_log_dir();
  return setup;
}

int run_command(const RunFlags& flags) {
  auto scenarios = load_all(flags.files, stderr);
  if (!scenarios) return kExitInvalidInput;
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
  const serve::JobOptions job{flags.commit,   flags.branch,  *labels,
                              flags.baseline, flags.promote, flags.strict};
  if (auto valid = serve::check_job_options(job); !valid) {
    std::fprintf(stderr, "error: %s\n", valid.message().c_str());
    return kExitInvalidInput;
  }
  for (const auto& [flag, path] :
       {std::pair{"--json", &flags.json_path}, std::pair{"--junit", &flags.junit_path},
        std::pair{"--markdown", &flags.markdown_path}, std::pair{"--html", &flags.html_path}}) {
    if (auto valid = check_output_path(flag, *path); !valid) {
      std::fprintf(stderr, "error: %s\n", valid.message().c_str());
      return kExitInvalidInput;
    }
  }
  const metrics::RunMetricsOptions metrics_options{flags.metrics_listen, flags.pushgateway,
                                                   flags.metrics_linger};
  if (auto valid = metrics::RunMetrics::validate(metrics_options); !valid) {
    std::fprintf(stderr, "error: %s\n", valid.message().c_str());
    return kExitInvalidInput;
  }
  // Before the database or any process: a bad token file costs nothing.
  auto worker_token = token_for_workers(flags.worker_token_file, flags.worker_addresses, stderr);
  if (!worker_token) {
    std::fprintf(stderr, "error: %s\n", worker_token.message().c_str());
    return kExitInvalidInput;
  }
  if (!flags.server.empty()) {
    return serve::remote_run({flags.server, flags.files, job});
  }
  // The /metrics listener and the database before anything is spawned: a port in use or a bad
  // path costs nothing.
  auto exporter = metrics::RunMetrics::start(metrics_options);
  if (!exporter) {
    std::fprintf(stderr, "error: %s\n", exporter.message().c_str());
    return kExitInvalidInput;
  }
  auto setup = set_up_run(flags, *labels, *worker_token);
  if (!setup) {
    std::fprintf(stderr, "error: %s\n", setup.message().c_str());
    return kExitInvalidInput;
  }
  auto& db = setup->db;
  const store::RunInfo& info = setup->info;
  const engine::EngineOptions& options = setup->options;

  engine::RunObserver* metrics_observer = *exporter ? &(*exporter)->observer() : nullptr;

  report::TerminalReport terminal(stdout, stderr);
  std::vector<report::ScenarioReport> reports;
  int exit_code = kExitOk;
  for (const auto& scenario : *scenarios) {
    reports.push_back(run_one(scenario, flags, options, *db, info, terminal, metrics_observer));
    const auto& r = reports.back();
    if (*exporter) (*exporter)->observer().scenario_finished(r, info.commit);
    print_scenario_end(r, stdout, stderr);
    exit_code = std::max(exit_code, r.exit_code);
    if (app::interrupted()) break;
  }
  if (app::interrupted()) {
    // Named as the stored workload's error and `run --server` name it.
    std::fprintf(stderr, "%s: every child process was stopped\n",
                 app::interrupt_description().c_str());
    exit_code = kExitRunError;
  }

  auto write = [&](const std::string& path, const std::string& text) {
    if (path.empty()) return;
    if (auto written = report::write_file_atomically(path, text); !written) {
      std::fprintf(stderr, "error: %s\n", written.message().c_str());
      exit_code = kExitRunError;
    }
  };
  write(flags.json_path, report::json_report(reports, exit_code));
  write(flags.junit_path, report::junit_xml(reports));
  write(flags.markdown_path, report::markdown_summary(reports));
  if (!flags.html_path.empty()) {
    // From the store, as `orchestrator report RUN` writes it: one code path for both.
    std::vector<report::HtmlRun> pages;
    for (const auto& r : reports) {
      if (!r.run_id) continue;
      auto page = report::load_html_run(*db, r.run_id, {flags.baseline});
      if (!page) {
        std::fprintf(stderr, "error: --html: %s\n", page.message().c_str());
        exit_code = kExitRunError;
        continue;
      }
      pages.push_back(std::move(*page));
    }
    write(flags.html_path, report::html_document(pages));
  }

  // The push reports a run that is already stored with its exit code: a failed push is said,
  // but it changes neither the stored run nor the exit code (README "Prometheus and Grafana").
  if (*exporter) {
    if (auto pushed = (*exporter)->finish(); !pushed) {
      std::fprintf(stderr, "warning: %s; the exit code stays the run's (%d)\n",
                   pushed.message().c_str(), exit_code);
    }
  }

  std::error_code ec;
  // A folder without a log (nothing was spawned: an external system, --workers-at) is no
  // lead to follow; it is removed instead of printed.
  if ((exit_code == kExitRunError || flags.keep_logs) && holds_a_file(options.log_dir)) {
    std::fprintf(stderr, "child process logs: %s\n", options.log_dir.c_str());
  } else {
    fs::remove_all(options.log_dir, ec);
  }
  return exit_code;
}

void add_validate_command(CLI::App& app, std::vector<std::string>& files) {
  auto* validate = app.add_subcommand(
      "validate", "Check scenario files without running anything (exit 0 valid, 2 invalid)");
  validate->add_option("files", files, "Scenario files (TOML)")->required();
}

int validate_command(const std::vector<std::string>& files) {
  auto scenarios = load_all(files, stderr);
  if (!scenarios) return kExitInvalidInput;
  for (const auto& scenario : *scenarios) {
    std::printf("%s: ok (scenario %s, %zu workload%s, %zu gate%s)\n", scenario.path.c_str(),
                scenario.name.c_str(), scenario.workloads.size(),
                scenario.workloads.size() == 1 ? "" : "s", scenario.gates.size(),
                scenario.gates.size() == 1 ? "" : "s");
  }
  return kExitOk;
}

}  // namespace benchgate::cli
