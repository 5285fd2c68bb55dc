// `orchestrator report RUN [--baseline NAME] [--html FILE] [--db PATH]`: the self-contained
// HTML report of any stored run (html_report.h), written from the store; runs nothing.
#pragma once

#include <cstdint>
#include <string>

namespace CLI {
class App;
}

namespace benchgate::cli {

struct ReportFlags {
  int64_t run_id = 0;
  std::string db_path = "benchgate.db";
  std::string db_busy_timeout = "5s";
  std::string baseline;
  std::string html_path;  // "": run-RUN.html in the current folder
  int history_runs = 20;
};

void add_report_command(CLI::App& app, ReportFlags& flags);
int report_command(const ReportFlags& flags);

}  // namespace benchgate::cli
