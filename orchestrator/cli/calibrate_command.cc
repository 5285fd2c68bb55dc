#include "orchestrator/cli/calibrate_command.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "orchestrator/app/bundled_binary.h"
#include "orchestrator/app/interrupt.h"
#include "orchestrator/app/run_one.h"
#include "orchestrator/app/run_setup.h"
#include "orchestrator/cli/binary_flags.h"
#include "orchestrator/cli/db_busy_timeout.h"
#include "orchestrator/cli/exit_codes.h"
#include "orchestrator/cli/load_scenarios.h"
#include "orchestrator/gates/calibration.h"
#include "orchestrator/gates/metrics.h"
#include "orchestrator/gating/calibration_series.h"
#include "orchestrator/scenario/workload_glob.h"
#include "orchestrator/serve/job.h"

namespace benchgate::cli {
namespace {

using Series = gating::CalibrationSeries;

std::string percent(double fraction) { return fmt::format("{:.1f}%", fraction * 100); }

// A detectable regression in the convention of every change a person reads (docs/GATES.md,
// "Verdicts"): a drop for a higher-is-better metric; "none" beyond a factor of 10 (said under
// the table).
std::string detect_text(const std::string& metric, double regression) {
  const gates::MetricInfo* info = gates::find_metric(metric);
  return gates::detectable_change_text(
      regression, info != nullptr ? info->direction : gates::Direction::kLowerIsBetter);
}

std::string value_text(const std::string& metric, double value) {
  const gates::MetricInfo* info = gates::find_metric(metric);
  return info ? gates::format_metric_value(value, info->unit) : fmt::format("{:g}", value);
}

// The smallest number of pairs whose signed-rank p can go below alpha (2^-R < alpha).
int pairs_for_signed_rank(double alpha) {
  int r = 1;
  while (r < 64 && std::ldexp(1.0, -r) >= alpha) ++r;
  return r;
}

// The level the series' detectable figures are at: "alpha 0.01" for a gate judged alone, else
// "alpha 0.01 / 3 gates (Holm's correction) = 0.00333".
std::string level_text(const Series& s) {
  if (s.holm_family <= 1) return fmt::format("alpha {:g}", s.alpha);
  return fmt::format("alpha {:g} / {} gates (Holm's correction) = {:.3g}", s.alpha, s.holm_family,
                     s.level());
}

// `detect paired`: what a paired gate with the series' test detects with the scenario's R
// pairs ("none": no R pairs reach alpha with the signed-rank test); "(t)" marks test = "t".
std::string paired_text(const Series& s, const gates::NoiseEstimate::WithinRuns& w) {
  if (s.paired_test == scenario::PairedTest::kT) {
    return detect_text(s.metric, w.detectable_paired) + " (t)";
  }
  return w.detectable_paired_signed_rank ? detect_text(s.metric, *w.detectable_paired_signed_rank)
                                         : "none";
}

// "hello default latency.p50": a series as the lines under the table name it.
std::string series_name(const Series& s) { return s.workload + " " + s.variant + " " + s.metric; }

std::string joined(const std::vector<std::string>& items) {
  std::string text;
  for (const std::string& item : items) text += (text.empty() ? "" : ", ") + item;
  return text;
}

// detect_text in a sentence: "no change within a factor of 10" where the column says "none".
std::string seen_text(const std::string& metric, double regression) {
  return gates::beyond_meaningful(regression)
             ? fmt::format("no change within a factor of {:g}", gates::kMeaningfulFactor)
             : detect_text(metric, regression);
}

// `gate #N WORKLOAD METRIC: max_regression ...` when a gate's max_regression is below
// `detectable`, the smallest regression its test can detect on this testbed `with` (its
// baseline runs, or its pairs), `also` in brackets after it: said the same way for relative and
// paired gates, in the convention of the change (a drop for throughput), with the key's value,
// as the gates' explanations say it. An infinite `detectable`: the test detects nothing.
void print_below_detectable(size_t g, const scenario::Gate& gate, const std::string& workload,
                            double detectable, const std::string& with, const std::string& also) {
  if (!(*gate.max_regression < detectable)) return;
  const gates::MetricInfo* info = gates::find_metric(gate.metric);
  const bool drop = info != nullptr && info->direction == gates::Direction::kHigherIsBetter;
  const std::string can = std::isinf(detectable) ? "nothing" : seen_text(gate.metric, detectable);
  const std::string below =
      std::isinf(detectable) || gates::beyond_meaningful(detectable)
          ? fmt::format("is below what this testbed can detect {}: {}", with, can)
      : drop
          ? fmt::format("(a {} change) is a smaller change than the {} this testbed can detect {}",
                        detect_text(gate.metric, *gate.max_regression), can, with)
          : fmt::format("is below the {} this testbed can detect {}", can, with);
  std::printf("gate #%zu %s %s: max_regression %s %s (%s)\n", g + 1, workload.c_str(),
              gate.metric.c_str(), percent(*gate.max_regression).c_str(), below.c_str(),
              also.c_str());
}

// What a paired gate could see, for the drift diagnosis.
std::string paired_sentence(const Series& s, const gates::NoiseEstimate::WithinRuns& w) {
  if (s.paired_test == scenario::PairedTest::kT || w.detectable_paired_signed_rank) {
    return fmt::format("with {} pairs could see {}", w.repetitions,
                       s.paired_test == scenario::PairedTest::kT
                           ? seen_text(s.metric, w.detectable_paired)
                           : seen_text(s.metric, *w.detectable_paired_signed_rank));
  }
  return fmt::format(
      "with {} pairs could see nothing at {} (its signed-rank test needs {} pairs; "
      "test = \"t\" could see {})",
      w.repetitions, level_text(s), pairs_for_signed_rank(s.level()),
      seen_text(s.metric, w.detectable_paired));
}

// What the spread says about the testbed, when its runs differ far more than each run's
// repetitions do (docs/GATES.md, "Calibration"): a line naming the series, or nothing.
std::optional<std::string> drift_diagnosis(const Series& s, const gates::NoiseEstimate& noise) {
  if (!noise.within) return std::nullopt;
  const auto& w = *noise.within;
  // Between-run spread at least 3 times what the repetitions explain, or two groups of runs.
  if (!noise.groups_apart && !(noise.log_sd > 3 * w.between_sd && noise.log_sd > 0.01)) {
    return std::nullopt;
  }
  std::string why =
      noise.groups_apart
          ? fmt::format("the runs fall into two groups {} apart", percent(*noise.groups_apart))
          : fmt::format(
                "the runs' figures spread {} times what their repetitions "
                "explain",
                fmt::format("{:.1f}", noise.log_sd / w.between_sd));
  return fmt::format(
      "{} {} {}: {} (cv {} between runs; a run's repetitions spread {} about its mean): this "
      "testbed's speed "
      "changes between runs; gates on stored baseline runs see {} here, a paired "
      "gate (against = VARIANT, windows alternating in one run) {}",
      s.workload, s.variant, s.metric, why, percent(noise.cv), percent(std::expm1(w.log_sd)),
      gates::beyond_meaningful(noise.detectable_5)
          ? seen_text(s.metric, noise.detectable_5)
          : "only changes past " + detect_text(s.metric, noise.detectable_5),
      paired_sentence(s, w));
}

// Why a calibration run ends the calibration: an interrupt, else the run's reason, else the
// first failed workload's ("calibration run 2 of s was interrupted", "... did not complete:
// workload 'hello': ...").
std::string calibration_run_failure(const report::ScenarioReport& r) {
  if (app::interrupted()) return "was interrupted";
  if (!r.run_error().empty()) return "did not complete: " + r.run_error();
  for (const auto& w : r.result.workloads) {
    if (!w.error.empty()) return "did not complete: workload '" + w.spec.name + "': " + w.error;
  }
  return "did not complete";
}

// " (run 8 is stored as an ordinary run)", " (runs 8 and 9 are ...)", or nothing.
std::string stored_runs_text(const std::vector<int64_t>& runs) {
  if (runs.empty()) return "";
  if (runs.size() == 1) return fmt::format(" (run {} is stored as an ordinary run)", runs[0]);
  if (runs.size() == 2) {
    return fmt::format(" (runs {} and {} are stored as ordinary runs)", runs[0], runs[1]);
  }
  return fmt::format(" (runs {} to {} are stored as ordinary runs)", runs.front(), runs.back());
}

}  // namespace

void add_calibrate_command(CLI::App& app, CalibrateFlags& flags) {
  auto* calibrate = app.add_subcommand(
      "calibrate",
      "Run a scenario N times unchanged (an A/A series) and store each gate's between-run "
      "noise and smallest detectable change on this testbed");
  calibrate->add_option("file", flags.file, "Scenario file (TOML)")
      ->required()
      ->check(CLI::ExistingFile);
  calibrate->add_option("--runs", flags.runs, "Runs of the A/A series, from 3 to 1000")
      ->capture_default_str();
  calibrate->add_option("--db", flags.db_path, "SQLite database of every run")
      ->capture_default_str();
  add_db_busy_timeout_option(*calibrate, flags.db_busy_timeout);
  calibrate->add_option("--router-bin", flags.router_binary, kRouterBinHelp);
  calibrate->add_option("--worker-bin", flags.worker_binary, kWorkerBinHelp);
  add_remote_worker_options(*calibrate, flags.workers);
  calibrate->add_option("--commit", flags.commit,
                        "Commit measured (default: the git work tree's), stored with every run");
  calibrate->add_option("--branch", flags.branch,
                        "Branch measured (default: the git work tree's), stored with every run");
  calibrate->add_flag("--keep-logs", flags.keep_logs, "Keep the children's stderr logs");
}

int calibrate_command(const CalibrateFlags& flags) {
  if (flags.runs < 3 || flags.runs > 1000) {
    std::fprintf(stderr, "error: --runs %d: must be from 3 to 1000\n", flags.runs);
    return kExitInvalidInput;
  }
  auto loaded = load_all({flags.file}, stderr);
  if (!loaded.scenarios) return loaded.exit_code;
  auto& scenarios = loaded.scenarios;
  const scenario::Scenario& scenario = scenarios->front();
  // The flags `run` shares, checked as `run` checks them: --commit and --branch (a control
  // character is refused; one from git is checked by set_up_run), and the remote workers.
  serve::JobOptions revision;
  revision.commit = flags.commit;
  revision.branch = flags.branch;
  if (auto valid = serve::check_job_options(revision); !valid) {
    std::fprintf(stderr, "error: %s\n", valid.message().c_str());
    return kExitInvalidInput;
  }
  auto remote = check_remote_worker_flags(flags.workers, *scenarios, stderr);
  if (!remote) {
    std::fprintf(stderr, "error: %s\n", remote.message().c_str());
    return kExitInvalidInput;
  }
  auto busy_timeout_ms = parse_db_busy_timeout(flags.db_busy_timeout);
  if (!busy_timeout_ms) {
    std::fprintf(stderr, "error: %s\n", busy_timeout_ms.message().c_str());
    return kExitInvalidInput;
  }
  // Before the store or any process, as `run` checks: a wrong path would otherwise start the
  // router, fail the first run (exit 3) and keep its log folder, for a usage mistake.
  if (auto usable = app::check_needed_binaries(*scenarios, flags.router_binary, flags.worker_binary,
                                               !flags.workers.addresses.empty());
      !usable) {
    std::fprintf(stderr, "error: %s\n", usable.message().c_str());
    return kExitInvalidInput;
  }
  app::SetupSettings settings;
  settings.db_path = flags.db_path;
  settings.commit = flags.commit;
  settings.branch = flags.branch;
  settings.store.busy_timeout_ms = *busy_timeout_ms;
  settings.labels = {{"calibration", "a/a"}};
  settings.processes = {flags.router_binary, flags.worker_binary, flags.workers.addresses,
                        remote->token,       flags.workers.count, remote->wait_ns};
  auto setup = app::set_up_run(settings);
  if (!setup) {
    std::fprintf(stderr, "error: %s\n", setup.message().c_str());
    return kExitInvalidInput;
  }
  store::Store& db = *setup->db;

  report::TerminalReport terminal(stdout, stderr);
  // Once, before the load, as `run` warns: each run is stored as every run is, under this
  // folder's commit and branch unless they are given, whichever router it measured.
  if (std::string warning = app::foreign_router_warning(
          *scenarios, flags.router_binary, !flags.workers.addresses.empty(), !flags.commit.empty(),
          !flags.branch.empty());
      !warning.empty()) {
    terminal.message(warning);
  }
  gating::CalibrationSeriesMap series;
  // Workloads of the runs that are not history (a process stopped, a worker lost): their noise
  // describes the incident, not the testbed, so they are not counted (docs/GATES.md,
  // "Calibration").
  std::vector<gating::CalibrationLeftOut> left_out;
  int64_t testbed_id = 0;
  int exit_code = kExitOk;
  std::vector<int64_t> stored_runs;  // the runs this calibration made, stored as every run is
  for (int i = 0; i < flags.runs; ++i) {
    std::fprintf(stderr, "calibrate %s: run %d/%d\n", scenario.name.c_str(), i + 1, flags.runs);
    report::ScenarioReport r =
        app::run_one(scenario, {}, setup->options, db, setup->info, terminal, nullptr);
    if (r.run_id > 0) stored_runs.push_back(r.run_id);
    if (!r.result.ok() || app::interrupted()) {
      std::fprintf(stderr, "error: calibration run %d of %s %s; no calibration stored%s\n", i + 1,
                   scenario.name.c_str(), calibration_run_failure(r).c_str(),
                   stored_runs_text(stored_runs).c_str());
      exit_code = kExitRunError;
      break;
    }
    if (auto stored = db.get_run(r.run_id)) testbed_id = stored->run.testbed_id;
    gating::collect_calibration_series(scenario, r.run_id, r.result.workloads, series, left_out);
  }

  if (exit_code == kExitOk) {
    std::vector<store::CalibrationRecord> records;
    // What a paired gate of each record's series could detect (records[i]'s, when its runs had
    // repetitions), for the gate lines after the table.
    std::vector<std::optional<gates::NoiseEstimate::WithinRuns>> within;
    std::printf("calibration of %s over %d runs (testbed %lld):\n", scenario.name.c_str(),
                flags.runs, static_cast<long long>(testbed_id));
    std::printf("  %-24s %-10s %-16s %12s %8s %14s %14s %14s\n", "workload", "variant", "metric",
                "mean", "cv", "detect 1 run", "detect 5 runs", "detect paired");
    std::vector<std::string> diagnoses;
    // The rows whose `detect paired` is "none" ("hello default latency.p50 has 3 pairs and
    // needs 8 at 0.005"), and whether one is "-": said under the table.
    std::vector<std::string> paired_none;
    bool paired_dash = false;
    // The series and baseline run counts whose `detect` is "none": beyond a factor of 10.
    std::vector<std::string> beyond;
    for (const auto& [key, s] : series) {
      if (!s.collected) {
        std::printf("  %-24s %-10s %-16s %12s  not measured in every run\n", s.workload.c_str(),
                    s.variant.c_str(), s.metric.c_str(), "-");
        continue;
      }
      // At the level the gates of the series will judge at (Holm's correction over the run's
      // relative gates), so that these figures are the gates' own `detectable`.
      auto noise = gates::estimate_noise(s.metric, s.figures, s.level(), s.repetitions);
      if (!noise) {
        if (s.figures.size() < 2) {
          std::printf("  %-24s %-10s %-16s %12s  %zu of %d runs counted: nothing stored\n",
                      s.workload.c_str(), s.variant.c_str(), s.metric.c_str(), "-",
                      s.figures.size(), flags.runs);
        }
        continue;
      }
      std::printf("  %-24s %-10s %-16s %12s %8s %14s %14s %14s\n", s.workload.c_str(),
                  s.variant.c_str(), s.metric.c_str(), value_text(s.metric, noise->mean).c_str(),
                  percent(noise->cv).c_str(), detect_text(s.metric, noise->detectable_1).c_str(),
                  detect_text(s.metric, noise->detectable_5).c_str(),
                  noise->within ? paired_text(s, *noise->within).c_str() : "-");
      if (!noise->within) {
        paired_dash = true;
      } else if (s.paired_test != scenario::PairedTest::kT &&
                 !noise->within->detectable_paired_signed_rank) {
        paired_none.push_back(fmt::format("{} has {} pairs and needs {} at {:.3g}", series_name(s),
                                          noise->within->repetitions,
                                          pairs_for_signed_rank(s.level()), s.level()));
      }
      for (const auto& [runs, figure] :
           {std::pair{1, noise->detectable_1}, std::pair{5, noise->detectable_5}}) {
        if (gates::beyond_meaningful(figure)) {
          beyond.push_back(fmt::format("{} with {} baseline {} and this calibration",
                                       series_name(s), runs, runs == 1 ? "run" : "runs"));
        }
      }
      if (auto d = drift_diagnosis(s, *noise)) diagnoses.push_back(std::move(*d));
      store::CalibrationRecord c;
      c.series = {testbed_id, scenario.name, s.workload, s.variant, s.params_hash, s.metric};
      c.runs = noise->runs;
      c.run_ids = s.run_ids;
      c.mean = noise->mean;
      c.cv = noise->cv;
      c.log_sd = noise->log_sd;
      c.alpha = s.level();  // the level detectable_1 and detectable_5 are at
      c.detectable_1 = noise->detectable_1;
      c.detectable_5 = noise->detectable_5;
      records.push_back(std::move(c));
      within.push_back(noise->within);
    }
    // Said once, with the series at each level: the columns are at Holm's level wherever the
    // run has more than one gate, and a series judged alone is at its gate's alpha.
    std::map<std::string, std::vector<std::string>> levels;
    bool holm = false;
    for (const auto& [key, s] : series) {
      if (!s.collected) continue;
      holm = holm || s.holm_family > 1;
      levels[level_text(s) + (s.holm_family > 1 ? "" : " (judged alone)")].push_back(
          series_name(s));
    }
    if (holm || levels.size() > 1) {
      std::printf(
          "detectable changes are at the level each series' gates judge at, over a run's "
          "relative and paired gates (a series no gate judges yet counts as one more):\n");
      for (const auto& [level, names] : levels) {
        std::printf("  %s: %s\n", level.c_str(), joined(names).c_str());
      }
    }
    if (!paired_none.empty()) {
      std::printf(
          "detect paired none: a paired gate's signed-rank test (its default) with R pairs has "
          "no p below 2^-R, so it detects nothing at the level its gate judges at: %s; more "
          "repetitions, or test = \"t\", let it detect\n",
          joined(paired_none).c_str());
    }
    if (!beyond.empty()) {
      std::printf(
          "detect none: the test cannot detect any change within a factor of %g (a figure "
          "falling to a tenth or rising tenfold): %s\n",
          gates::kMeaningfulFactor, joined(beyond).c_str());
    }
    if (paired_dash) {
      std::printf("detect paired -: a run had fewer than two repetitions: no pairs to judge\n");
    }
    for (const auto& d : diagnoses) std::printf("%s\n", d.c_str());
    for (const auto& l : left_out) {
      std::printf("run %lld %s %s left out of the calibration: %s\n",
                  static_cast<long long>(l.run_id), l.workload.c_str(), l.variant.c_str(),
                  l.reason.c_str());
    }
    // A relative or paired gate asking for less than its testbed can detect says so now, not
    // at the first release it lets through: one line for both, each with the figure its own
    // test will judge by (5 baseline runs and this calibration; the scenario's R pairs).
    for (size_t g = 0; g < scenario.gates.size(); ++g) {
      const scenario::Gate& gate = scenario.gates[g];
      const bool paired = !gate.against.empty();
      if ((gate.baseline.empty() && !paired) || !gate.max_regression) continue;
      for (size_t i = 0; i < records.size(); ++i) {
        const store::CalibrationRecord& c = records[i];
        if (c.series.metric != gate.metric ||
            !scenario::workload_matches(gate.workload, c.series.workload) ||
            !scenario::workload_matches(gate.variant, c.series.variant) ||
            (paired && c.series.variant == gate.against)) {
          continue;
        }
        if (!paired) {
          print_below_detectable(
              g, gate, c.series.workload, c.detectable_5, "with 5 baseline runs",
              seen_text(gate.metric, c.detectable_1) + " with 1 run and this calibration");
          continue;
        }
        if (!within[i]) continue;  // no pairs to judge: said under the table (detect paired -)
        const auto& w = *within[i];
        const std::string pairs = fmt::format("with {} pairs", w.repetitions);
        const std::string against = "a paired gate against " + gate.against;
        if (gate.paired_test == scenario::PairedTest::kT) {
          print_below_detectable(g, gate, c.series.workload + " [" + c.series.variant + "]",
                                 w.detectable_paired, pairs, against + ", test = \"t\"");
        } else if (w.detectable_paired_signed_rank) {
          print_below_detectable(g, gate, c.series.workload + " [" + c.series.variant + "]",
                                 *w.detectable_paired_signed_rank, pairs,
                                 against + ", signed-rank test");
        } else {
          print_below_detectable(g, gate, c.series.workload + " [" + c.series.variant + "]",
                                 std::numeric_limits<double>::infinity(), pairs,
                                 against + ", signed-rank test: it needs " +
                                     std::to_string(pairs_for_signed_rank(c.alpha)) + " pairs at " +
                                     fmt::format("{:.3g}", c.alpha));
        }
      }
    }
    if (auto stored = db.store_calibrations(records); !stored) {
      std::fprintf(stderr, "error: %s\n", stored.message().c_str());
      exit_code = kExitRunError;
    } else {
      std::printf("stored %zu calibrations in %s\n", records.size(), flags.db_path.c_str());
    }
  }

  std::error_code ec;
  if (exit_code == kExitRunError || flags.keep_logs) {
    std::fprintf(stderr, "child process logs: %s\n", setup->options.log_dir.c_str());
  } else {
    std::filesystem::remove_all(setup->options.log_dir, ec);
  }
  return exit_code;
}

}  // namespace benchgate::cli
