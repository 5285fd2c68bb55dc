#include "orchestrator/cli/gate_command.h"

#include <CLI/CLI.hpp>
#include <filesystem>
#include <optional>
#include <set>
#include <string_view>

#include "common/util/shown_text.h"
#include "orchestrator/cli/db_busy_timeout.h"
#include "orchestrator/cli/existing_store.h"
#include "orchestrator/cli/exit_codes.h"
#include "orchestrator/cli/report_flags.h"
#include "orchestrator/report/gate_report.h"
#include "orchestrator/report/run_outputs.h"
#include "orchestrator/report/stored_run.h"
#include "orchestrator/scenario/scenario_loader.h"
#include "orchestrator/scenario/suggest.h"
#include "orchestrator/store/store.h"

namespace benchgate::cli {

void add_gate_command(CLI::App& app, GateFlags& flags) {
  auto* gate = app.add_subcommand(
      "gate",
      "Re-evaluate a stored run's gates against the stored history (runs nothing); a run still "
      "running is refused, one that did not end ok exits 3 whatever its verdicts");
  gate->add_option("run", flags.run_id, "Run id (see `orchestrator runs list`)")->required();
  gate->add_option("--db", flags.db_path, "SQLite database of every run")->capture_default_str();
  add_db_busy_timeout_option(*gate, flags.db_busy_timeout);
  gate->add_option("--baseline", flags.baseline,
                   "Evaluate every relative gate against this baseline instead of its own");
  gate->add_flag("--strict", flags.strict, kStrictHelp);
  gate->add_option("--json", flags.json_path, "Write the verdicts as JSON");
  gate->add_option("--junit", flags.junit_path, "Write the verdicts as JUnit XML");
  gate->add_option("--markdown", flags.markdown_path, "Write a Markdown summary");
  for (const char* name : {"--json", "--junit", "--markdown"}) {
    gate->get_option(name)->each(
        [&flags, name](const std::string&) { flags.given_reports.push_back(name); });
  }
}

namespace {

// Why `name` is no baseline of the store, naming the baselines that hold runs of `scenario`
// ("none" when none does); nothing when some baseline is called so, of whatever scenario.
std::optional<std::string> unknown_baseline(store::Store& store, const std::string& name,
                                            const std::string& scenario) {
  auto entries = store.list_baselines();
  if (!entries) return "cannot read the baselines: " + entries.message();
  std::set<std::string> names;
  for (const store::BaselineEntry& entry : *entries) {
    if (entry.name == name) return std::nullopt;
    if (entry.scenario == scenario) names.insert(entry.name);
  }
  std::string known;
  for (const std::string& n : names) known += (known.empty() ? "" : ", ") + n;
  const std::vector<std::string_view> candidates(names.begin(), names.end());
  return "--baseline '" + name + "': no baseline has that name" +
         scenario::did_you_mean(name, candidates) + "; baselines with runs of scenario '" +
         scenario + "': " + (known.empty() ? "none" : known) + "; nothing was judged or stored";
}

}  // namespace

int gate_command(const GateFlags& flags) {
  // A report file that cannot be written is a usage mistake, found before the verdicts are
  // stored (exit 2), as `run` finds it before it runs.
  const report::OutputPaths outputs{flags.json_path, flags.junit_path, flags.markdown_path, ""};
  if (auto valid = check_report_flags(flags.given_reports, outputs); !valid) {
    std::fprintf(stderr, "error: %s\n", valid.message().c_str());
    return kExitInvalidInput;
  }
  auto db = open_existing_store(flags.db_path, flags.db_busy_timeout);
  if (!db) {
    std::fprintf(stderr, "error: %s\n", db.message().c_str());
    return kExitInvalidInput;
  }
  auto run = (*db)->get_run(flags.run_id);
  if (!run) {
    std::fprintf(stderr, "error: %s\n", run.message().c_str());
    return kExitInvalidInput;
  }
  // A run still measured has no end to judge: its verdicts would say its workloads did not run
  // and become its first stored evaluation, before the one the run itself stores. Opening the
  // store called every run whose orchestrator is gone `abandoned`: `running` is one going on.
  if (run->run.status == "running") {
    std::fprintf(
        stderr,
        "error: run %lld is still running; `gate` judges a run once it ended (see `orchestrator "
        "runs show %lld`); nothing was judged or stored\n",
        static_cast<long long>(flags.run_id), static_cast<long long>(flags.run_id));
    return kExitInvalidInput;
  }
  // A misspelt --baseline is refused before anything is stored: judged, it would store a new
  // latest evaluation of `no_baseline` verdicts, which `runs show`, the reports and the pages
  // then show for the run. A baseline that exists without a run of this series still judges.
  if (!flags.baseline.empty()) {
    if (auto unknown = unknown_baseline(**db, flags.baseline, run->run.scenario)) {
      std::fprintf(stderr, "error: %s\n", unknown->c_str());
      return kExitInvalidInput;
    }
  }
  // The gates as the run's own scenario text defines them. A gate the loader refuses now (a rule
  // added since the run) is kept, and judged an error that says why (docs/GATES.md, "Verdicts");
  // any other problem of the stored text fails the command.
  const std::string origin = "run " + std::to_string(flags.run_id) + " scenario";
  scenario::LoadOptions options;
  options.keep_refused_gates = true;
  auto loaded = scenario::load_scenario_text(run->scenario_text, origin, options);
  if (!loaded.ok()) {
    for (const auto& d : loaded.diagnostics) std::fprintf(stderr, "%s\n", d.format().c_str());
    std::fprintf(stderr, "error: the stored scenario of run %lld no longer loads\n",
                 static_cast<long long>(flags.run_id));
    return kExitInvalidInput;
  }

  store::Store& store = **db;
  // The run read back as the engine produced it, so that a figure that was not measured is
  // explained as the run itself explained it (results::not_measured_reason).
  const engine::ScenarioResult restored = report::result_from_store(*run);
  // The confirming reruns of change gates with confirm = 1 (docs/GATES.md, "Confirming rerun")
  // are not measured again: their stored figures are judged again.
  std::vector<store::GateRecord> before;
  if (auto stored = store.gate_results(flags.run_id)) before = std::move(*stored);
  std::vector<gating::WorkloadValues> workloads;
  for (size_t i = 0; i < run->workloads.size(); ++i) {
    const store::StoredWorkload& w = run->workloads[i];
    gating::WorkloadValues v;
    v.name = w.name;
    v.variant = w.variant;
    v.params_hash = w.params_hash;
    v.params_json = w.params_json;
    v.status = w.status;
    v.error = w.error;
    for (const auto& rep : w.repetitions) {
      v.not_judged = gating::not_judged_reason(rep.index, rep.stopped, rep.flags);
      if (!v.not_judged.empty()) break;
    }
    const int64_t id = flags.run_id;
    v.values = [&store, id, name = w.name, variant = w.variant](const std::string& metric) {
      auto values = store.run_metric_values(id, name, variant, metric);
      return values ? *values : std::nullopt;
    };
    v.numbers = [&store, id, name = w.name, variant = w.variant](const std::string& metric) {
      auto values = store.run_metric_values_by_repetition(id, name, variant, metric);
      std::optional<std::vector<uint32_t>> numbers;
      if (!values || !*values) return numbers;
      numbers.emplace();
      for (const results::RepetitionValue& value : **values) numbers->push_back(value.repetition);
      return numbers;
    };
    v.figure = [&store, id, name = w.name, variant = w.variant](const std::string& metric) {
      auto figure = store.run_metric_figure(id, name, variant, metric);
      return figure ? *figure : std::nullopt;
    };
    v.tool_latency = restored.workloads[i].latency.total_count() == 0 &&
                     !restored.workloads[i].latency_tool().empty();
    v.not_measured = [&result = restored.workloads[i]](const std::string& metric) {
      return results::not_measured_reason(result, metric);
    };
    v.partly_measured = [&result = restored.workloads[i]](const std::string& metric) {
      return results::partly_measured_reason(result, metric);
    };
    for (const store::GateRecord& g : before) {
      if (!g.confirmation || g.workload != w.name || g.variant != w.variant) continue;
      gating::WorkloadValues::Rerun rerun;
      if (*g.confirmation == "failed") {
        rerun.error = "its stored rerun measured nothing (run " + std::to_string(id) +
                      "'s first evaluation says why)";
      } else {
        rerun.figure = [&before, name = w.name, variant = w.variant](const std::string& metric) {
          for (const store::GateRecord& r : before) {
            if (r.workload == name && r.variant == variant && r.metric == metric &&
                r.confirmation_observed) {
              return std::optional<double>(*r.confirmation_observed);
            }
          }
          return std::optional<double>();
        };
        // As many repetitions as the run's own: only their count matters to a change gate.
        rerun.values = v.values;
      }
      v.rerun = std::move(rerun);
      break;
    }
    workloads.push_back(std::move(v));
  }
  gating::GateContext context{&store, flags.run_id, run->run.testbed_id, run->run.scenario,
                              flags.baseline};
  context.submitted_by = store::submitted_by(run->run.origin);
  // A workload the run never got to has no row: its gates say why it did not run.
  if (run->run.status == "aborted") context.stopped_before = "the run was interrupted";
  if (run->run.status == "abandoned") {
    context.stopped_before = "the run was abandoned (its orchestrator was killed)";
    context.abandoned = true;
  }
  report::ScenarioReport report;
  report.run_id = flags.run_id;
  report.result.scenario = run->run.scenario;
  report.status = run->run.status;
  report.binaries = run->binaries;
  if (run->run.status != "ok") {
    // The reason the store holds, as every other report of the run says it; a run stored
    // before reasons were (schema version 3) has none, and its status is said instead.
    report.result.error = !run->run.error.empty()
                              ? run->run.error
                              : "run " + std::to_string(flags.run_id) + " is " + run->run.status;
  }
  report.gates = gating::evaluate_gates(loaded.scenario->gates, workloads, context);

  std::vector<store::GateRecord> records;
  for (const auto& g : report.gates) records.push_back(gating::to_record(g));
  int exit_code = gating::gates_exit_code(report.gates, flags.strict);
  if (!records.empty()) {
    if (auto stored = store.store_gate_results(flags.run_id, records); !stored) {
      std::fprintf(stderr, "error: cannot store gate results: %s\n", stored.message().c_str());
      exit_code = kExitRunError;
    }
  }
  if (run->run.status != "ok") exit_code = kExitRunError;
  report.exit_code = exit_code;
  report.strict = flags.strict;

  std::printf("run %lld (%s, %s)\n", static_cast<long long>(flags.run_id),
              run->run.scenario.c_str(), run->run.status.c_str());
  if (report.gates.empty()) std::printf("the scenario has no gates\n");
  std::fputs(report::gates_table(report.gates).c_str(), stdout);
  std::fputs(report::strict_failures_line(report.gates, flags.strict).c_str(), stdout);
  // A run that did not end `ok` exits 3 whatever its verdicts (docs/GATES.md, "Severity and
  // exit codes"): one line says so, with the reason the store holds.
  if (run->run.status != "ok") {
    const std::string why = !run->run.error.empty()          ? shown_text(run->run.error)
                            : run->run.status == "abandoned" ? "its orchestrator was killed"
                                                             : "no reason stored";
    std::fprintf(stderr,
                 "error: run %lld is stored %s: %s; `gate` exits 3 for a run that did not end "
                 "ok, whatever its verdicts\n",
                 static_cast<long long>(flags.run_id), run->run.status.c_str(), why.c_str());
  }

  if (!report::write_report_files(outputs, {report}, exit_code)) {
    exit_code = kExitRunError;
  }
  return exit_code;
}

}  // namespace benchgate::cli
