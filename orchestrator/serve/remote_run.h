// `orchestrator run --server ADDR FILE...`: submits each file's text to a running service,
// streams its output and progress back, and exits with the code the local run would have.
#pragma once

#include <string>
#include <vector>

#include "orchestrator/serve/job.h"

namespace benchgate::serve {

// One scenario file as the client loaded it: its name as given, and the text read then. The
// text is sent, not read again: a pipe (`<(generate)`, /dev/stdin) can be read only once.
struct SubmittedFile {
  std::string name;
  std::string text;
};

struct RemoteRunOptions {
  std::string server;  // HOST:PORT of `orchestrator serve --listen`
  std::vector<SubmittedFile> files;
  JobOptions job;
};

int remote_run(const RemoteRunOptions& options);

}  // namespace benchgate::serve
