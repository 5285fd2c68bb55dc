// `orchestrator run --server ADDR --promote NAME` with several files: each job is submitted
// with deferred_promote (it does not promote itself), and once every job has ended the client
// asks the service's Promote to add all their runs in one transaction, only when the whole
// invocation exits 0, as a local run promotes the runs of its scenarios (docs/GATES.md).
#pragma once

#include <grpcpp/grpcpp.h>

#include <cstdint>
#include <string>
#include <vector>

#include "benchgate/v1/orchestrator.grpc.pb.h"

namespace benchgate::serve {

// One job of the invocation as its stream ended: its stored run's id, 0 for none.
struct WatchedJob {
  uint64_t job_id = 0;
  int64_t run_id = 0;
};

// Asks whether the service would take a later Promote to `baseline` (validate_only): before
// anything is submitted. UNIMPLEMENTED from a service older than Promote. A refusal that names
// the request's field 'baseline' names --promote instead, the flag the user gave.
grpc::Status check_promote_later(v1::Orchestrator::Stub& stub, const std::string& baseline);

// The invocation's end, every job's stream ended and `exit_code` its exit code so far: when
// it is 0 and no interrupt came, asks Promote to add every job's run to `baseline` and says
// each run promoted; otherwise asks nothing and says why no run was. Returns the invocation's
// exit code: 3 after an interrupt (as a local run), or when the service refused the runs (none
// was added) or its answer never came (then it says it cannot tell, never that none was added;
// so too when the repeat, asked after a lost answer, is refused for anything but the request
// itself, INVALID_ARGUMENT or PERMISSION_DENIED).
// `key`: the promote_key every job was submitted with, which proves to the service that this
// client submitted them.
int promote_together(v1::Orchestrator::Stub& stub, const std::string& server,
                     const std::string& baseline, const std::string& key,
                     const std::vector<WatchedJob>& jobs, int exit_code);

}  // namespace benchgate::serve
