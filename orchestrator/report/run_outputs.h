// Where a finished run's reports go: the lines that follow each scenario's tables, and the
// files --json, --junit, --markdown and --html write. `run`, `run --server`'s service and `gate`
// leave their output here, so that each command says the same thing the same way.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "common/util/expected.h"
#include "orchestrator/report/scenario_report.h"
#include "orchestrator/store/store.h"

namespace benchgate::report {

// What follows a scenario's tables, on `out`: the gate table, comparison ratios and sweep
// models, then the RESULT|, COMPARE| and SWEEP| lines; the scenario's error on `err`. One
// function, so that a client of `serve` reads what a local run prints.
void print_scenario_end(const ScenarioReport& r, std::FILE* out, std::FILE* err);

// The report files of a run; an empty path is not written.
struct OutputPaths {
  std::string json;
  std::string junit;
  std::string markdown;
  std::string html;  // read back from the store, as `orchestrator report RUN` writes it
};

// Whether `path` (given with `flag`, e.g. "--json") can be written: not a folder, in a folder
// that exists and takes a new file. A report file that cannot be written would be found out
// only after the run, which is then stored with exit code 0 while the process exits 3.
Expected<void> check_output_path(const char* flag, const std::string& path);
// check_output_path for each path of `paths`, with its flag; the first error.
Expected<void> check_output_paths(const OutputPaths& paths);

// Writes the JSON (with `exit_code`), JUnit and Markdown files of `reports` that `paths` names,
// each on its own; every file that could not be written is an error line on stderr, and the
// result is false then.
bool write_report_files(const OutputPaths& paths, const std::vector<ScenarioReport>& reports,
                        int exit_code);

// Writes the HTML report of every stored run of `reports`, read from `db` (its baseline
// `baseline`, "" for the gates' own), to `path` (nothing when empty). False, with an error line
// on stderr, when a run could not be read or the file written.
bool write_html_report(const std::string& path, const std::vector<ScenarioReport>& reports,
                       store::Store& db, const std::string& baseline);

}  // namespace benchgate::report
