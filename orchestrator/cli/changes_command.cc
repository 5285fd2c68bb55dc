// `history changes`: flags, their checks, and the store's change points rendered by
// orchestrator/history/change_listing.
#include "orchestrator/cli/changes_command.h"

#include <CLI/CLI.hpp>

#include <charconv>
#include <cmath>
#include <ctime>
#include <iostream>
#include <optional>

#include "orchestrator/cli/db_busy_timeout.h"
#include "orchestrator/cli/existing_store.h"
#include "orchestrator/cli/exit_codes.h"
#include "orchestrator/history/change_listing.h"
#include "orchestrator/scenario/suggest.h"
#include "orchestrator/store/store.h"

namespace benchgate::cli {
namespace {

int usage_error(const std::string& message) {
  std::cerr << "error: " << message << "\n";
  return kExitInvalidInput;
}

// "2%", "2" and "0.5%" are percentages; the result is a fraction (0.02).
std::optional<double> parse_percent(std::string text) {
  if (!text.empty() && text.back() == '%') text.pop_back();
  double value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end || !std::isfinite(value)) {
    return std::nullopt;
  }
  return value / 100;
}

// --since: a run id, or a UTC date "YYYY-MM-DD" / "YYYY-MM-DDTHH:MM:SS[Z]".
struct Since {
  int64_t run = 0;
  std::optional<int64_t> started_ns;
};

std::optional<Since> parse_since(const std::string& text) {
  Since since;
  if (text.empty()) return since;
  if (text.find_first_not_of("0123456789") == std::string::npos) {
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), since.run);
    if (ec != std::errc() || since.run <= 0) return std::nullopt;
    return since;
  }
  std::tm tm{};
  const char* rest = strptime(text.c_str(), "%Y-%m-%d", &tm);
  if (rest == nullptr) return std::nullopt;
  if (*rest == 'T') rest = strptime(rest + 1, "%H:%M:%S", &tm);
  if (rest != nullptr && *rest == 'Z') ++rest;
  if (rest == nullptr || *rest != '\0') return std::nullopt;
  since.started_ns = static_cast<int64_t>(timegm(&tm)) * 1'000'000'000;
  return since;
}

std::string metric_list() {
  std::string out;
  for (const std::string& m : store::Store::change_metrics()) out += (out.empty() ? "" : ", ") + m;
  return out;
}

int changes(const ChangesFlags& flags) {
  changes::ChangeOptions options = store::Store::stored_change_options();
  const double smallest = 1.0 / (options.permutations + 1);
  if (!(flags.alpha > smallest && flags.alpha <= 0.5)) {
    return usage_error("--alpha " + CLI::detail::to_string(flags.alpha) + ": must be above " +
                       CLI::detail::to_string(smallest) + " (one over " +
                       std::to_string(options.permutations + 1) +
                       ", the smallest p-value the permutation test resolves) and at most 0.5");
  }
  const std::optional<double> min_change = parse_percent(flags.min_change);
  if (!min_change || *min_change < 0 || *min_change > 10) {
    return usage_error("--min-change '" + flags.min_change +
                       "': expected a percentage from 0% to 1000%, such as 2% or 2");
  }
  if (flags.testbed < 0) {
    return usage_error("--testbed " + std::to_string(flags.testbed) +
                       ": expected a testbed id (1, 2, ...)");
  }
  const std::optional<Since> since = parse_since(flags.since);
  if (!since) {
    return usage_error("--since '" + flags.since +
                       "': expected a run id (1, 2, ...) or a UTC date YYYY-MM-DD or "
                       "YYYY-MM-DDTHH:MM:SSZ");
  }
  if (!flags.metric.empty()) {
    const auto& known = store::Store::change_metrics();
    if (std::find(known.begin(), known.end(), flags.metric) == known.end()) {
      const std::vector<std::string_view> names(known.begin(), known.end());
      return usage_error("--metric '" + flags.metric + "'" +
                         scenario::did_you_mean(flags.metric, names) +
                         ": change points are looked for in " + metric_list());
    }
  }
  if (!flags.submitted_by.empty() && flags.submitted_by != store::kOperatorRuns &&
      flags.submitted_by != store::kClientRuns) {
    return usage_error("--submitted-by '" + flags.submitted_by +
                       "': expected operator (runs of orchestrator run and serve's own "
                       "scenarios) or client (runs submitted to orchestrator serve)");
  }
  options.alpha = flags.alpha;
  options.min_change = *min_change;

  auto store = open_existing_store(flags.db, flags.db_busy_timeout);
  if (!store) return usage_error(store.message());
  // A run id no run has would show nothing, as if the history had no change since: said, as
  // `gate RUN` says it.
  if (since->run > 0) {
    if (auto run = (*store)->get_run(since->run); !run) {
      if (run.error().kind != ErrorKind::kInvalidInput) {
        std::cerr << "error: " << run.message() << "\n";
        return kExitRunError;
      }
      return usage_error("--since " + flags.since + ": " + run.message());
    }
  }
  store::ChangeSeriesFilter filter{flags.scenario, flags.workload, flags.variant,
                                   flags.metric,   flags.branch,   flags.testbed};
  filter.submitted_by = flags.submitted_by;
  auto series = (*store)->change_points(filter, options);
  if (!series) {
    std::cerr << "error: " << series.message() << "\n";
    return kExitRunError;
  }
  for (store::SeriesChanges& s : *series) {
    std::erase_if(s.changes, [&](const store::StoredChangePoint& c) {
      return c.run_id < since->run || (since->started_ns && c.started_at_ns < *since->started_ns);
    });
  }
  if (flags.json) {
    std::cout << history::render_change_json(
        *series, {flags.db, options.alpha, options.min_change, flags.since});
    return kExitOk;
  }
  if (series->empty()) {
    std::cout << "no finished runs match in " << flags.db << "\n";
    return kExitOk;
  }
  std::cout << history::render_change_table(*series, options.min_size)
            << history::render_change_lines(*series);
  return kExitOk;
}

}  // namespace

void add_changes_command(CLI::App& app, ChangesFlags& flags) {
  CLI::App* history = app.add_subcommand("history", "Analyse the stored history of every series");
  history->require_subcommand(1);
  CLI::App* cmd = history->add_subcommand(
      "changes",
      "Change points of every series (scenario, workload, variant, metric, testbed) of "
      "finished runs: E-divisive means with permutation tests over the runs' medians "
      "(docs/GATES.md, \"Change points\"). Per change: the run where it happened, the commits "
      "before it, the medians before and after, the change with its 95% interval, the "
      "p-value; a table and CHANGE| lines, or JSON");
  cmd->add_option("--scenario", flags.scenario, "Only this scenario");
  cmd->add_option("--workload", flags.workload, "Only this workload");
  cmd->add_option("--variant", flags.variant, "Only this variant");
  cmd->add_option("--metric", flags.metric, "Only this metric: " + metric_list());
  cmd->add_option("--branch", flags.branch,
                  "Only runs of this branch make up each series (computed, not read from the "
                  "store)");
  cmd->add_option("--testbed", flags.testbed,
                  "Only this testbed id (the number in the TESTBED column)");
  cmd->add_option("--submitted-by", flags.submitted_by,
                  "Only the operator's series (runs of orchestrator run and serve's own "
                  "scenarios) or only the series of runs clients submitted to orchestrator "
                  "serve: operator or client; without it both, a client's series marked "
                  "(client)");
  cmd->add_option("--since", flags.since,
                  "Only changes at this run id or later, or at runs started on or after this "
                  "UTC date (YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ); the whole history is still "
                  "analysed");
  cmd->add_option("--alpha", flags.alpha,
                  "Significance level of a change (above 0.002, at most 0.5); other than the "
                  "default, series are computed, not read from the store")
      ->capture_default_str();
  cmd->add_option("--min-change", flags.min_change,
                  "Changes smaller than this (|median after / median before - 1|) are not "
                  "reported, e.g. 2% or 2; other than the default, series are computed")
      ->capture_default_str();
  cmd->add_flag("--json", flags.json, "Print one JSON document instead of the table and lines");
  cmd->add_option("--db", flags.db, "SQLite result database (never created by this command)")
      ->capture_default_str();
  add_db_busy_timeout_option(*cmd, flags.db_busy_timeout, DbUse::kReadsOnly);
}

int run_changes_command(const CLI::App& app, const ChangesFlags& flags) {
  if (!app.got_subcommand("history")) return -1;
  return changes(flags);
}

}  // namespace benchgate::cli
