// `orchestrator run FILE...` (or `run --server ADDR --scenario-name NAME`): validate every file,
// run each scenario, store it, evaluate its gates, report, and exit with a code a pipeline can act
// on. And `orchestrator validate`.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "common/util/expected.h"
#include "orchestrator/cli/remote_worker_flags.h"
#include "orchestrator/serve/job.h"

namespace CLI {
class App;
}

namespace benchgate::cli {

struct RunFlags {
  std::vector<std::string> files;
  std::string db_path = "benchgate.db";
  std::string db_busy_timeout = "5s";
  std::string json_path;
  std::string junit_path;
  std::string markdown_path;
  std::string html_path;  // the self-contained HTML report of every run, from the store
  std::string commit;
  std::string branch;
  std::vector<std::string> labels;  // key=value
  std::string promote;              // baseline to add the run to when its critical gates pass
  std::string baseline;             // overrides every relative gate's baseline
  bool strict = false;
  std::string router_binary;
  std::string worker_binary;
  RemoteWorkerFlags workers;  // --workers-at, --workers, --workers-wait, --worker-token-file
  bool keep_logs = false;
  std::string metrics_listen;         // HOST:PORT for Prometheus' /metrics
  std::string metrics_linger = "0s";  // keep /metrics up this long after the run
  std::string pushgateway;            // http://HOST:PORT: push the final values there
  std::string server;                 // HOST:PORT of `orchestrator serve`: submit there instead
  // With --server: scenarios of the service's --scenarios folder, run by name (after `files`).
  std::vector<std::string> scenario_names;
  // The flags given that only a local run uses (its files, binaries, workers, metrics), in the
  // order `run` declares them: refused with --server, where they would silently do nothing.
  std::vector<std::string> local_only;
};

void add_run_command(CLI::App& app, RunFlags& flags);
int run_command(const RunFlags& flags);

// The --label values as a map, each KEY=VALUE; an error for one without '=' or with an empty
// key, and for a key given twice (naming both), which the map would keep one of.
Expected<std::map<std::string, std::string>> parse_labels(const std::vector<std::string>& items);

// The options a run takes per submission (commit, branch, labels, baseline, promote, strict),
// each from its own flag; what only the service sets (a deferred promote, its key, limits) is
// left at its default.
serve::JobOptions job_options(const RunFlags& flags, std::map<std::string, std::string> labels);

// `orchestrator validate FILE...`
void add_validate_command(CLI::App& app, std::vector<std::string>& files);
int validate_command(const std::vector<std::string>& files);

}  // namespace benchgate::cli
