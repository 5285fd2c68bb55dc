// See run_outputs.h.
#include "orchestrator/report/run_outputs.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <optional>
#include <utility>

#include "common/util/errno_text.h"
#include "orchestrator/cli/exit_codes.h"
#include "orchestrator/report/analysis.h"
#include "orchestrator/report/gate_report.h"
#include "orchestrator/report/html_report.h"
#include "orchestrator/report/json_report.h"
#include "orchestrator/report/report_file.h"
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
  const std::string where = std::string(flag) + " " + path + ": ";
  if (fs::is_directory(path, ec)) return Error{where + "is a folder, not a file"};
  auto target = report_target(path);
  if (!target) return Error{where + target.message()};
  if (target->stream) {
    // Written into, never replaced (/dev/stdout, a pipe): its folder need not take new files.
    if (::access(path.c_str(), W_OK) != 0) {
      return Error{where + "cannot be written (" + errno_text(errno) + ")"};
    }
    return {};
  }
  // A link is written through: the file it points at is replaced, in that file's folder.
  const std::string through =
      target->path == path ? std::string() : " (where the link leads: " + target->path + ")";
  fs::path folder = fs::path(target->path).parent_path();
  if (folder.empty()) folder = ".";
  if (fs::is_directory(target->path, ec)) return Error{where + "is a link to a folder" + through};
  if (!fs::is_directory(folder, ec)) {
    return Error{where + "folder '" + folder.string() + "' does not exist" + through};
  }
  // A file is made and removed, as permission bits alone do not tell (root passes access() in
  // a read-only folder, /proc and /sys refuse new files to everyone).
  std::string probe = (folder / ".benchgate-write-check-XXXXXX").string();
  const int fd = ::mkstemp(probe.data());
  if (fd < 0) {
    return Error{where + "folder '" + folder.string() + "' is not writable (" + errno_text(errno) +
                 ")" + through};
  }
  ::close(fd);
  ::unlink(probe.c_str());
  return {};
}

namespace {

// Which file `path` writes, for telling two flags that name one apart: a stream by its path
// as given, made absolute; a file by where its links lead, made absolute and without `.` and
// `..`, and, when it exists, by its device and inode (a hard link, a folder reached two ways).
struct FileKey {
  std::string path;
  dev_t device = 0;
  ino_t inode = 0;
  bool exists = false;
};

FileKey file_key(const std::string& path) {
  FileKey key;
  std::error_code ec;
  auto target = report_target(path);
  const std::string resolved = target && !target->stream ? target->path : path;
  key.path = fs::weakly_canonical(fs::absolute(resolved, ec), ec).lexically_normal().string();
  if (ec) key.path = fs::absolute(resolved, ec).lexically_normal().string();
  struct stat st {};
  if (target && !target->stream && ::stat(resolved.c_str(), &st) == 0) {
    key.exists = true;
    key.device = st.st_dev;
    key.inode = st.st_ino;
  }
  return key;
}

bool same_file(const FileKey& a, const FileKey& b) {
  if (a.path == b.path) return true;
  return a.exists && b.exists && a.device == b.device && a.inode == b.inode;
}

}  // namespace

Expected<void> check_output_paths(const OutputPaths& paths) {
  const std::pair<const char*, const std::string*> flags[] = {{"--json", &paths.json},
                                                              {"--junit", &paths.junit},
                                                              {"--markdown", &paths.markdown},
                                                              {"--html", &paths.html}};
  for (const auto& [flag, path] : flags) {
    if (auto valid = check_output_path(flag, *path); !valid) return valid;
  }
  // Two reports in one file: the last written would be all that is left (or, in a pipe, two
  // documents one after the other that no reader of either takes).
  std::vector<std::pair<const char*, FileKey>> seen;
  for (const auto& [flag, path] : flags) {
    if (path->empty()) continue;
    FileKey key = file_key(*path);
    for (const auto& [earlier, earlier_key] : seen) {
      if (!same_file(earlier_key, key)) continue;
      const std::string* earlier_path = nullptr;
      for (const auto& [f, p] : flags) {
        if (f == earlier) earlier_path = p;
      }
      return Error{std::string(earlier) + " " + *earlier_path + " and " + flag + " " + *path +
                   " name the same file; each report needs a file of its own"};
    }
    seen.emplace_back(flag, std::move(key));
  }
  return {};
}

bool write_outputs(const OutputPaths& paths, const std::function<OutputTexts()>& render,
                   const std::function<void()>& on_failure) {
  struct Output {
    const std::string* path;
    std::string OutputTexts::*text;
    std::optional<StagedReport> staged;
    bool failed = false;    // its first write failed: not tried again
    bool streamed = false;  // a stream already written: not written again
  };
  Output outputs[] = {{&paths.json, &OutputTexts::json, {}},
                      {&paths.junit, &OutputTexts::junit, {}},
                      {&paths.markdown, &OutputTexts::markdown, {}},
                      {&paths.html, &OutputTexts::html, {}}};
  auto fail = [](Output& o, const std::string& why) {
    std::fprintf(stderr, "error: %s\n", why.c_str());
    o.staged.reset();
    o.failed = true;
  };

  OutputTexts texts = render();
  for (const std::string& why : texts.errors) std::fprintf(stderr, "error: %s\n", why.c_str());
  bool ok = texts.errors.empty();
  // Every text beside its target first: one that cannot be written puts none in place.
  for (Output& o : outputs) {
    if (o.path->empty()) continue;
    auto staged = StagedReport::stage(*o.path, texts.*o.text);
    if (!staged) {
      fail(o, staged.message());
      ok = false;
    } else {
      o.staged.emplace(std::move(*staged));
    }
  }
  // The files renamed into place, then the streams, which cannot be taken back: a rename that
  // fails leaves them to say the outcome it makes.
  for (bool streams : {false, true}) {
    for (Output& o : outputs) {
      if (!ok || !o.staged || o.staged->stream() != streams) continue;
      if (auto put = o.staged->commit(); !put) {
        fail(o, put.message());
        ok = false;
      } else {
        o.streamed = streams;
      }
    }
  }
  if (ok) return true;

  // The truth: the outcome the failure makes, in every file that can still be written.
  for (Output& o : outputs) o.staged.reset();
  on_failure();
  const std::vector<std::string> said = texts.errors;
  texts = render();
  for (const std::string& why : texts.errors) {
    if (std::find(said.begin(), said.end(), why) == said.end()) {
      std::fprintf(stderr, "error: %s\n", why.c_str());
    }
  }
  for (Output& o : outputs) {
    if (o.path->empty() || o.failed || o.streamed) continue;
    if (auto written = write_report_file(*o.path, texts.*o.text); !written) {
      fail(o, written.message());
    }
  }
  return false;
}

OutputTexts output_texts(const OutputPaths& paths, const std::vector<ScenarioReport>& reports,
                         int exit_code, store::Store* db, const std::string& baseline) {
  OutputTexts texts;
  if (!paths.json.empty()) texts.json = json_report(reports, exit_code);
  if (!paths.junit.empty()) texts.junit = junit_xml(reports);
  if (!paths.markdown.empty()) texts.markdown = markdown_summary(reports);
  if (!paths.html.empty() && db) texts.html = html_text(reports, *db, baseline, texts.errors);
  return texts;
}

bool write_report_files(const OutputPaths& paths, const std::vector<ScenarioReport>& reports,
                        int exit_code) {
  std::vector<ScenarioReport> truth = reports;
  const OutputPaths files{paths.json, paths.junit, paths.markdown, ""};
  return write_outputs(
      files, [&] { return output_texts(files, truth, exit_code, nullptr, ""); },
      [&] {
        // As the process exits then, and as run_locally raises a stored run.
        exit_code = cli::kExitRunError;
        for (ScenarioReport& r : truth) {
          if (r.run_id == 0 || r.exit_code == cli::kExitRunError) continue;
          r.exit_code = cli::kExitRunError;
          r.add_error(kReportFilesNotWritten);
        }
      });
}

std::string html_text(const std::vector<ScenarioReport>& reports, store::Store& db,
                      const std::string& baseline, std::vector<std::string>& errors) {
  // From the store, as `orchestrator report RUN` writes it: one code path for both.
  std::vector<HtmlRun> pages;
  for (const auto& r : reports) {
    if (!r.run_id) continue;
    auto page = load_html_run(db, r.run_id, {baseline});
    if (!page) {
      errors.push_back("--html: " + page.message());
      continue;
    }
    pages.push_back(std::move(*page));
  }
  return html_document(pages);
}

}  // namespace benchgate::report
