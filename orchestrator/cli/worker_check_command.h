// `orchestrator worker-check [--timeout DURATION] -- COMMAND...`: the conformance test of the
// worker protocol (docs/WORKER_PROTOCOL.md). Spawns COMMAND --listen 127.0.0.1:0, drives it
// through a small workload of one protocol (--protocol: HTTP/1.1 by default, HTTP/2 or WAMP;
// worker_check_spec.h) against the bundled router, prints PASS/FAIL per rule, and
// exits 0 only when every rule passed (1: a rule failed, 2: usage).
#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include <grpcpp/support/status.h>

namespace CLI {
class App;
}

namespace benchgate::cli {

struct WorkerCheckFlags {
  std::string timeout = "30s";  // for the whole check
  std::string router_binary;    // the bundled router (default: next to the orchestrator)
  std::string token_file;  // --worker-token-file: sent on every call, and checked to be required
  std::string protocol = "http1";  // the workload's protocol (worker_check_spec.h)
  std::string wamp_transport;      // WAMP only; "" not given: websocket
  std::string wamp_serializer;     // WAMP only; "" not given: json
  std::vector<std::string> command;
};

// The rule "stream closed mid-window: the stream ends OK within 2 s of WritesDone", judged on
// when the worker ended the stream: `ended_after`, from the WritesDone to the Read that
// returned false (not to Finish, which may return later), `status` Finish's. `left`: what was
// left of the check's --timeout (`timeout`, as given) at the WritesDone; with less than 2.4 s
// (the 2 s and a margin) a stream that did not end OK is the check's time running out, said
// so, not the worker's fault. Empty detail when it passed.
struct CloseVerdict {
  bool passed = false;
  std::string detail;
};
CloseVerdict judge_close_mid_window(std::chrono::nanoseconds ended_after,
                                    std::chrono::nanoseconds left, const grpc::Status& status,
                                    const std::string& timeout);

// Text of the worker's own that a rule's detail quotes (its READY line, the name and version
// its Describe answered): in single quotes, through shown_cut (common/util/shown_list.h), cut
// after ShownList::kItemBytes bytes and escaped, as the result checks quote a worker's names,
// so that a line of control characters or of 64 KiB neither forges nor colours a line of the
// check's output, nor runs on.
std::string quoted_worker_text(std::string_view text);

void add_worker_check_command(CLI::App& app, WorkerCheckFlags& flags);
int worker_check_command(const WorkerCheckFlags& flags);

}  // namespace benchgate::cli
