// `orchestrator serve`: the engine as a long-running service. The gRPC Orchestrator service
// (proto/benchgate/v1/orchestrator.proto), one run at a time with a queue, Prometheus
// /metrics always on, optional continuous reruns of the scenario folder (--every).
#pragma once

#include <string>
#include <vector>

#include "orchestrator/cli/remote_worker_flags.h"
#include "orchestrator/serve/admission.h"
#include "orchestrator/serve/job_queue.h"

namespace CLI {
class App;
}

namespace benchgate::cli {

struct ServeFlags {
  std::string listen = "127.0.0.1:7700";
  std::string metrics_listen = "127.0.0.1:9464";
  std::string http_listen;  // HOST:PORT of the read-only web pages; empty: none
  std::string db_path = "benchgate.db";
  std::string db_busy_timeout = "5s";
  std::string scenarios_dir;
  std::string every;                            // empty: no scheduled runs
  std::vector<std::string> allowed_commands;    // programs a submitted scenario may start
  std::vector<std::string> allowed_addresses;   // HOST:PORT a submitted scenario may reach
  std::vector<std::string> allowed_promotions;  // baselines a client may add its run to
  std::string router_binary;
  std::string worker_binary;
  // --workers-at, --workers, --workers-wait, --worker-token-file: declared as `run` declares
  // them (add_remote_worker_options), checked by serve's own rule (serve_command).
  RemoteWorkerFlags workers;
  size_t max_queued = serve::JobQueueLimits{}.max_waiting;
  size_t keep_finished = serve::JobQueueLimits{}.finished_kept;
  size_t keep_output_bytes = serve::JobQueueLimits{}.event_bytes_kept;
  size_t keep_output_total_bytes = serve::JobQueueLimits{}.total_bytes_kept;
  int64_t max_run_seconds = serve::kDefaultMaxRunNs / 1'000'000'000;
  size_t max_processes = serve::kDefaultMaxProcesses;
  size_t metrics_scenarios = 100;
};

void add_serve_command(CLI::App& app, ServeFlags& flags);
int serve_command(const ServeFlags& flags);

}  // namespace benchgate::cli
