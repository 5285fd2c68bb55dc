// The history commands: argument wiring and thin handlers; what they print is rendered by
// orchestrator/history/ from the store's records.
#include "orchestrator/cli/history_commands.h"

#include <CLI/CLI.hpp>

#include <iostream>
#include <memory>

#include "orchestrator/cli/db_busy_timeout.h"
#include "orchestrator/cli/existing_store.h"
#include "orchestrator/cli/exit_codes.h"
#include "orchestrator/history/listings.h"
#include "orchestrator/history/run_comparison.h"
#include "orchestrator/history/run_detail.h"
#include "orchestrator/store/store.h"

namespace benchgate::cli {
namespace {

using store::Store;

int fail(int code, const std::string& message) {
  std::cerr << "error: " << message << "\n";
  return code;
}

// A store error: the user's mistake (unknown run, bad name: ErrorKind::kInvalidInput) or the
// database's failure.
int fail(const Error& error) {
  return fail(error.kind == ErrorKind::kInvalidInput ? kExitInvalidInput : kExitRunError,
              error.text());
}

// Opens the database only when the file is there: a history command must never leave an
// empty database behind a mistyped --db. Any --db it cannot open is a usage error, as for
// `run` and `gate`.
std::unique_ptr<Store> open_existing(const HistoryFlags& flags, int& exit_code) {
  auto store = open_existing_store(flags.db, flags.db_busy_timeout);
  if (!store) {
    exit_code = fail(kExitInvalidInput, store.message());
    return nullptr;
  }
  return std::move(*store);
}

void add_db_option(CLI::App& command, HistoryFlags& flags, DbUse use) {
  command.add_option("--db", flags.db, "SQLite result database (never created by this command)")
      ->capture_default_str();
  add_db_busy_timeout_option(command, flags.db_busy_timeout, use);
}

int runs_list(Store& store, const HistoryFlags& flags) {
  if (flags.limit < 0) return fail(kExitInvalidInput, "--limit must be 0 (every run) or more");
  auto runs = store.list_runs(flags.limit, flags.scenario);
  if (!runs) return fail(runs.error());
  if (runs->empty()) {
    std::cout << (flags.scenario.empty()
                      ? "no runs stored in " + flags.db
                      : "no runs of scenario '" + flags.scenario + "' in " + flags.db)
              << "\n";
    return kExitOk;
  }
  std::cout << history::render_run_list(*runs);
  return kExitOk;
}

int runs_show(Store& store, const HistoryFlags& flags) {
  auto run = store.get_run(flags.run);
  if (!run) return fail(run.error());
  auto gates = store.gate_results(flags.run);
  if (!gates) return fail(gates.error());
  std::cout << history::render_run_detail(*run, *gates);
  return kExitOk;
}

int baseline_add(Store& store, const HistoryFlags& flags) {
  auto entries = store.list_baselines(flags.baseline);
  if (!entries) return fail(entries.error());
  for (const store::BaselineEntry& e : *entries) {
    if (e.run_id == flags.run) {
      std::cout << "run " << flags.run << " is already in baseline '" << flags.baseline << "'\n";
      return kExitOk;
    }
  }
  if (auto ok = store.add_baseline(flags.baseline, flags.run); !ok) return fail(ok.error());
  std::cout << "added run " << flags.run << " to baseline '" << flags.baseline << "' ("
            << entries->size() + 1 << " run" << (entries->empty() ? "" : "s") << ")\n";
  return kExitOk;
}

int baseline_remove(Store& store, const HistoryFlags& flags) {
  if (auto ok = store.remove_baseline(flags.baseline, flags.run); !ok) return fail(ok.error());
  std::cout << "removed run " << flags.run << " from baseline '" << flags.baseline << "'\n";
  return kExitOk;
}

int baseline_list(Store& store, const HistoryFlags& flags) {
  auto entries = store.list_baselines(flags.baseline);
  if (!entries) return fail(entries.error());
  if (entries->empty()) {
    std::cout << (flags.baseline.empty() ? "no baselines in " + flags.db
                                         : "baseline '" + flags.baseline + "' has no runs")
              << "\n";
    return kExitOk;
  }
  std::cout << history::render_baseline_list(*entries);
  return kExitOk;
}

// A run's workloads with their figures and per-repetition values of every compared metric.
Expected<history::RunSamples> load_samples(Store& store, int64_t run_id) {
  auto run = store.get_run(run_id);
  if (!run) return run.error();
  history::RunSamples samples;
  samples.run_id = run_id;
  samples.testbed_fingerprint = run->testbed.fingerprint();
  samples.testbed_host = run->testbed.host;
  samples.scenario = run->run.scenario;
  samples.status = run->run.status;
  samples.commit = run->run.commit;
  samples.binaries = run->binaries;
  for (const store::StoredWorkload& w : run->workloads) {
    history::WorkloadSamples ws{w.name, w.variant, w.params_hash, w.params_json, w.status, w.error,
                                {},     {}};
    for (std::string_view metric : history::kCompareMetrics) {
      auto values = store.run_metric_values(run_id, w.name, w.variant, std::string(metric));
      if (!values) return values.error();
      if (*values) ws.values[std::string(metric)] = std::move(**values);
    }
    ws.figures = w.figures;
    samples.workloads.push_back(std::move(ws));
  }
  return samples;
}

int compare(Store& store, const HistoryFlags& flags) {
  if (!(flags.alpha > 0 && flags.alpha < 1)) {
    return fail(kExitInvalidInput, "--alpha must lie strictly between 0 and 1");
  }
  // A run that does not exist is named as such first, as when the two ids differ.
  auto a = load_samples(store, flags.run_a);
  if (!a) return fail(a.error());
  if (flags.run_a == flags.run_b) {
    return fail(kExitInvalidInput,
                "compare " + std::to_string(flags.run_a) + " " + std::to_string(flags.run_b) +
                    ": a run compared with itself shows no change; give two different runs");
  }
  auto b = load_samples(store, flags.run_b);
  if (!b) return fail(b.error());
  const history::RunComparison comparison = history::compare_runs(*a, *b, flags.alpha);
  std::cout << (flags.json ? history::render_comparison_json(comparison)
                           : history::render_comparison(comparison));
  return kExitOk;
}

}  // namespace

void add_history_commands(CLI::App& app, HistoryFlags& flags) {
  CLI::App* runs = app.add_subcommand("runs", "List and inspect stored runs");
  runs->require_subcommand(1);
  CLI::App* list = runs->add_subcommand(
      "list",
      "List stored runs, newest first: id, scenario, status, start, duration, commit, "
      "branch, exit code, origin (local, scheduled, client), labels");
  list->add_option("--scenario", flags.scenario, "Only runs of this scenario");
  list->add_option("--limit", flags.limit, "At most this many runs (0: every run)")
      ->capture_default_str();
  add_db_option(*list, flags, DbUse::kReadsOnly);
  CLI::App* show = runs->add_subcommand(
      "show", "Show one run: testbed, every repetition's figures, the latest gate verdicts");
  show->add_option("RUN", flags.run, "Run id (see `runs list`)")->required();
  add_db_option(*show, flags, DbUse::kReadsOnly);

  CLI::App* baseline =
      app.add_subcommand("baseline", "Manage baselines: named sets of runs relative gates use");
  baseline->require_subcommand(1);
  CLI::App* add = baseline->add_subcommand(
      "add",
      "Add a run that finished ok with exit code 0 (what --promote takes) to a baseline, "
      "creating the baseline if needed");
  add->add_option("NAME", flags.baseline, "Baseline name (letters, digits, '_', '-', '.')")
      ->required();
  add->add_option("RUN", flags.run, "Run id")->required();
  add_db_option(*add, flags, DbUse::kWrites);
  CLI::App* remove = baseline->add_subcommand("remove", "Remove a run from a baseline");
  remove->add_option("NAME", flags.baseline, "Baseline name")->required();
  remove->add_option("RUN", flags.run, "Run id")->required();
  add_db_option(*remove, flags, DbUse::kWrites);
  CLI::App* baseline_list_cmd =
      baseline->add_subcommand("list", "List the runs of one baseline, or of every baseline");
  baseline_list_cmd->add_option("NAME", flags.baseline, "Only this baseline");
  add_db_option(*baseline_list_cmd, flags, DbUse::kReadsOnly);

  CLI::App* cmp = app.add_subcommand(
      "compare",
      "Compare two stored runs, benchstat-style: per workload and metric both runs' figures "
      "(as RESULT lines and gates give them) and their change; over the repetitions, the "
      "change's interval and p-value, \"~\" where not significant (or significant the other "
      "way, with a note)");
  cmp->add_option("RUN_A", flags.run_a, "The old run")->required();
  cmp->add_option("RUN_B", flags.run_b, "The new run (another run than RUN_A)")->required();
  cmp->add_option("--alpha", flags.alpha, "Significance level of a change")->capture_default_str();
  cmp->add_flag("--json", flags.json,
                "One JSON document instead of the tables: the same figures, changes as fractions, "
                "and notes");
  add_db_option(*cmp, flags, DbUse::kReadsOnly);
}

std::optional<int> run_history_command(const CLI::App& app, const HistoryFlags& flags) {
  using Handler = int (*)(Store&, const HistoryFlags&);
  Handler handler = nullptr;
  if (app.got_subcommand("runs")) {
    const CLI::App* runs = app.get_subcommand("runs");
    handler = runs->got_subcommand("list") ? runs_list : runs_show;
  } else if (app.got_subcommand("baseline")) {
    const CLI::App* baseline = app.get_subcommand("baseline");
    handler = baseline->got_subcommand("add")      ? baseline_add
              : baseline->got_subcommand("remove") ? baseline_remove
                                                   : baseline_list;
  } else if (app.got_subcommand("compare")) {
    handler = compare;
  } else {
    return std::nullopt;
  }
  int exit_code = kExitOk;
  std::unique_ptr<Store> store = open_existing(flags, exit_code);
  if (!store) return exit_code;
  return handler(*store, flags);
}

}  // namespace benchgate::cli
