// `orchestrator worker-check [--timeout DURATION] -- COMMAND...`: the conformance test of the
// worker protocol (docs/WORKER_PROTOCOL.md). Spawns COMMAND --listen 127.0.0.1:0, drives it
// through a small HTTP/1.1 workload against the bundled router, prints PASS/FAIL per rule, and
// exits 0 only when every rule passed (1: a rule failed, 2: usage).
#pragma once

#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace benchgate::cli {

struct WorkerCheckFlags {
  std::string timeout = "30s";  // for the whole check
  std::string router_binary;    // the bundled router (default: next to the orchestrator)
  std::string token_file;  // --worker-token-file: sent on every call, and checked to be required
  std::vector<std::string> command;
};

void add_worker_check_command(CLI::App& app, WorkerCheckFlags& flags);
int worker_check_command(const WorkerCheckFlags& flags);

}  // namespace benchgate::cli
