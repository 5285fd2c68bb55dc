// Where a finished run's reports go: the lines that follow each scenario's tables, and the
// files --json, --junit, --markdown and --html write. `run`, `run --server`'s service and `gate`
// leave their output here, so that each command says the same thing the same way.
#pragma once

#include <cstdio>
#include <functional>
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

// Whether `path` (given with `flag`, e.g. "--json") can be written: not a folder; a stream (a
// pipe, a terminal, a device, /dev/stdout) this process may open for writing; else a file (or
// what its symbolic link points at) in a folder that exists and takes a new file. A report file
// that cannot be written would be found out only after the run, which then exits 3.
Expected<void> check_output_path(const char* flag, const std::string& path);
// check_output_path for each path of `paths`, with its flag, then that no two flags name the
// same file (the same path, or links to one file), which would leave only the last report
// written; the first error.
Expected<void> check_output_paths(const OutputPaths& paths);

// The text of each report file, made from the reports as they stand when asked.
struct OutputTexts {
  std::string json, junit, markdown, html;
  // Why a text is not whole (an HTML page whose run could not be read): each fails the outputs
  // as a file that cannot be written does.
  std::vector<std::string> errors;
};

// Writes the files `paths` names, all or the truth (docs/REPORTS.md, "Report files"): each
// text `render` makes is first written to a temporary file beside its target (report_file.h),
// and only when every one is (and `render` said no error) are they put in place, the streams
// (/dev/stdout, a pipe) written. When one cannot be, none is put in place yet: `on_failure`
// makes the outcome what a report file not written makes it (exit code 3, the reason added to
// each run and to the store), and every file that can still be written is written with what
// `render` makes then, so that a report file says the exit code and error the process and the
// store say. A file whose first write failed is not tried again, a stream already written is
// not written again. Each failure is an error line on stderr; false when there was one.
bool write_outputs(const OutputPaths& paths, const std::function<OutputTexts()>& render,
                   const std::function<void()>& on_failure);

// The texts of the files `paths` names (the others ""): the JSON with `exit_code`, JUnit and
// Markdown, and the HTML report of every stored run of `reports`, read back from `db` (its
// baseline `baseline`, "" for the gates' own), each run that could not be read an error. `db`
// may be null when `paths.html` is empty.
OutputTexts output_texts(const OutputPaths& paths, const std::vector<ScenarioReport>& reports,
                         int exit_code, store::Store* db, const std::string& baseline);

// The reason a run's exit code is raised to 3 for when a report file could not be written.
inline constexpr const char* kReportFilesNotWritten = "the report files could not be written";

// write_outputs of the JSON (with `exit_code`), JUnit and Markdown files of `reports` that
// `paths` names. When one cannot be written, the others say exit code 3 and, for each stored
// run, kReportFilesNotWritten as an error, as the process exits then.
bool write_report_files(const OutputPaths& paths, const std::vector<ScenarioReport>& reports,
                        int exit_code);

// The HTML report of every stored run of `reports`, read from `db` (its baseline `baseline`,
// "" for the gates' own); each run that could not be read is an error of `errors`.
std::string html_text(const std::vector<ScenarioReport>& reports, store::Store& db,
                      const std::string& baseline, std::vector<std::string>& errors);

}  // namespace benchgate::report
