// `orchestrator run FILE...`: validate every file, run each scenario, report, exit code.
#pragma once

#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace benchgate::cli {

struct RunFlags {
  std::vector<std::string> files;
  std::string json_path;
  std::string router_binary;
  std::string worker_binary;
  std::vector<std::string> worker_addresses;
  bool keep_logs = false;
};

void add_run_command(CLI::App& app, RunFlags& flags);
int run_command(const RunFlags& flags);

// `orchestrator validate FILE...`
void add_validate_command(CLI::App& app, std::vector<std::string>& files);
int validate_command(const std::vector<std::string>& files);

}  // namespace benchgate::cli
