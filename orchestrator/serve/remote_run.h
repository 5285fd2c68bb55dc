// `orchestrator run --server ADDR FILE...`: submits each file's text to a running service (or,
// with --scenario-name, a scenario of its own folder by name), streams its output and progress
// back, and exits with the code the local run would have.
#pragma once

#include <string>
#include <vector>

#include "orchestrator/serve/job.h"

namespace benchgate::serve {

// One scenario file as the client loaded it: its name as given, and the text read then. The
// text is sent, not read again: a pipe (`<(generate)`, /dev/stdin) can be read only once.
// With `by_name`, `name` is a scenario of the service's --scenarios folder (`run --server ADDR
// --scenario-name NAME`), sent by name with no text: the service runs the file it holds.
struct SubmittedFile {
  std::string name;
  std::string text;
  bool by_name = false;
};

struct RemoteRunOptions {
  std::string server;  // HOST:PORT of `orchestrator serve --listen`
  std::vector<SubmittedFile> files;
  JobOptions job;
};

int remote_run(const RemoteRunOptions& options);

}  // namespace benchgate::serve
