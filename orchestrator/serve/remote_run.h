// `orchestrator run --server ADDR FILE...`: submits each file's text to a running service,
// streams its output and progress back, and exits with the code the local run would have.
#pragma once

#include <string>
#include <vector>

#include "orchestrator/serve/job.h"

namespace benchgate::serve {

struct RemoteRunOptions {
  std::string server;  // HOST:PORT of `orchestrator serve --listen`
  std::vector<std::string> files;
  JobOptions job;
};

int remote_run(const RemoteRunOptions& options);

}  // namespace benchgate::serve
