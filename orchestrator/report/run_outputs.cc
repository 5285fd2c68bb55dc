// See run_outputs.h.
#include "orchestrator/report/run_outputs.h"

#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "orchestrator/report/analysis.h"
#include "orchestrator/report/gate_report.h"
#include "orchestrator/report/html_report.h"
#include "orchestrator/report/json_report.h"
#include "orchestrator/report/result_line.h"

namespace benchgate::report {
namespace fs = std::filesystem;

void print_scenario_end(const ScenarioReport& r, std::FILE* out, std::FILE* err) {
  std::fputs(gates_table(r.gates).c_str(), out);
  std::fputs(strict_failures_line(r.gates, r.strict).c_str(), out);
  const std::string run = r.run_id ? std::to_string(r.run_id) : "-";
  // Comparison ratios and sweep models, then their machine-readable lines.
  std::fputs(analysis_text(r.result).c_str(), out);
  for (const auto& workload : r.result.workloads) {
    std::fprintf(out, "%s\n", result_line(r.result.scenario, workload, run).c_str());
  }
  for (const auto& c : comparisons(r.result)) {
    std::fprintf(out, "%s\n", comparison_line(r.result.scenario, c).c_str());
  }
  for (const auto& s : sweeps(r.result)) {
    std::fprintf(out, "%s\n", sweep_line(r.result.scenario, s).c_str());
  }
  std::fflush(out);
  // The reason the store holds (runs.error), as the --json `error` says it.
  if (!r.run_error().empty()) {
    std::fprintf(err, "error: scenario %s: %s\n", r.result.scenario.c_str(), r.run_error().c_str());
  }
}

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

Expected<void> check_output_paths(const OutputPaths& paths) {
  for (const auto& [flag, path] :
       {std::pair{"--json", &paths.json}, std::pair{"--junit", &paths.junit},
        std::pair{"--markdown", &paths.markdown}, std::pair{"--html", &paths.html}}) {
    if (auto valid = check_output_path(flag, *path); !valid) return valid;
  }
  return {};
}

namespace {

bool write(const std::string& path, const std::string& text) {
  if (path.empty()) return true;
  if (auto written = write_file_atomically(path, text); !written) {
    std::fprintf(stderr, "error: %s\n", written.message().c_str());
    return false;
  }
  return true;
}

}  // namespace

bool write_report_files(const OutputPaths& paths, const std::vector<ScenarioReport>& reports,
                        int exit_code) {
  bool ok = write(paths.json, json_report(reports, exit_code));
  ok = write(paths.junit, junit_xml(reports)) && ok;
  return write(paths.markdown, markdown_summary(reports)) && ok;
}

bool write_html_report(const std::string& path, const std::vector<ScenarioReport>& reports,
                       store::Store& db, const std::string& baseline) {
  if (path.empty()) return true;
  // From the store, as `orchestrator report RUN` writes it: one code path for both.
  bool ok = true;
  std::vector<HtmlRun> pages;
  for (const auto& r : reports) {
    if (!r.run_id) continue;
    auto page = load_html_run(db, r.run_id, {baseline});
    if (!page) {
      std::fprintf(stderr, "error: --html: %s\n", page.message().c_str());
      ok = false;
      continue;
    }
    pages.push_back(std::move(*page));
  }
  return write(path, html_document(pages)) && ok;
}

}  // namespace benchgate::report
