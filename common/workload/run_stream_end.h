// The trailing metadata with which a worker says that it ended a Run stream itself, with a
// status it chose (docs/WORKER_PROTOCOL.md "Errors"): the bundled worker sends it with every
// non-OK status its Run returns (worker/service/worker_service.cc); the orchestrator, seeing it,
// does not wait for the worker's process to die before it reports the status
// (orchestrator/engine/workload_runner.cc explain_end). A stream a transport break or a dying
// process ended carries no trailing metadata, so the mark cannot appear there.
#pragma once

namespace benchgate::run_stream {

// gRPC metadata keys are lower case.
inline constexpr char kEndedByWorkerKey[] = "benchgate-ended-by-worker";
inline constexpr char kEndedByWorkerValue[] = "1";

}  // namespace benchgate::run_stream
