// `orchestrator serve` once its flags are checked: the gRPC Orchestrator service with its job
// queue, Prometheus /metrics, the optional web pages (--http) and the scheduled reruns of the
// scenario folder (--every), until SIGINT or SIGTERM. The command (cli/serve_command.cc)
// parses and checks its flags and calls this.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "orchestrator/app/run_setup.h"
#include "orchestrator/serve/job_queue.h"

namespace benchgate::app {

struct ServeSettings {
  std::string listen;          // gRPC HOST:PORT
  std::string metrics_listen;  // /metrics HOST:PORT
  std::string http_listen;     // web pages HOST:PORT; empty: none
  std::string db_path;
  std::string scenarios_dir;                    // the scenarios clients may run by name
  int64_t every_ns = 0;                         // rerun every scenario this often; 0: never
  std::vector<std::string> allowed_commands;    // programs a submitted scenario may start
  std::vector<std::string> allowed_addresses;   // HOST:PORT a submitted scenario may reach
  std::vector<std::string> allowed_promotions;  // baselines a client may add its run to
  serve::JobQueueLimits queue_limits;           // --max-queued, --keep-finished
  int64_t max_run_ns = 0;                       // --max-run-seconds
  size_t max_processes = 0;                     // --max-processes
  size_t metrics_scenarios = 0;                 // --metrics-scenarios
  ProcessSettings processes;
  store::OpenOptions store = {};  // --db-busy-timeout
};

// Serves until a signal, then stops the running job (its run is recorded as aborted), cancels
// the queued ones and returns 0; 2 when a listener or the store cannot start (nothing runs).
int serve(const ServeSettings& settings);

}  // namespace benchgate::app
