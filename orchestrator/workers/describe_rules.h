// What a worker's Describe answer says it can run, held against a workload: `run` refuses a
// workload that its workers' Describe does not list, at its start, rather than have a worker
// fail it mid-window or run something else (docs/WORKER_PROTOCOL.md "Describe").
#pragma once

#include <optional>
#include <string>

#include "benchgate/v1/worker.pb.h"
#include "common/util/expected.h"
#include "orchestrator/scenario/scenario.h"
#include "orchestrator/workers/worker_pool.h"

namespace benchgate::workers {

// The load model a workload asks for, as Describe names it: "open" when it sets a rate,
// "closed" otherwise.
const char* load_model_of(const scenario::Workload& workload);

// The names of one Describe field as `run` and worker-check quote them: "http1, http2", "none"
// for an empty list. The worker's words: each escaped and cut, and at most ShownList::kItems of
// them written (common/util/shown_list.h).
std::string described_list(const google::protobuf::RepeatedPtrField<std::string>& listed);

// "" when `described` admits `workload`; otherwise what the worker lists against what the
// workload asks for: "lists protocols http2; workload 'w' asks for http1" (the caller names
// the worker before it). An empty list admits anything, so that a worker that does not say
// keeps working. max_threads is not held against the workload's threads: the protocol calls it
// informational (the bundled worker answers its machine's CPU count, and a workload may run
// more threads than that on purpose).
std::string unserved(const v1::DescribeResponse& described, const scenario::Workload& workload);

// The refusal of the first of `pool`'s workers 0..count-1 (those the workload runs on) whose
// Describe does not admit `workload`, naming the worker by its implementation and command line
// ("worker 'kv' (command kv-worker --fast) lists protocols http2; workload 'w' asks for
// http1"), or by its pool name for one the pool connects to ("worker 1 at HOST:PORT ...").
std::optional<Error> refuse_unserved(const WorkerPool& pool, size_t count,
                                     const scenario::Workload& workload);

// The name and version that `pool`'s workers 0..count-1 answered to Describe, as a run stores
// them with the workload (results::WorkloadResult::worker_name): each through shown_cut (the
// worker's free text, escaped and cut after ShownList::kItemBytes bytes); where the workers
// answered differently, each one's distinct values in worker order, ", " between. Empty where
// no worker gave one (a pool that keeps no answer).
struct DescribedAs {
  std::string name;
  std::string version;
};
DescribedAs described_as(const WorkerPool& pool, size_t count);
// `so_far` with `more`'s values added where they differ (a compared variant's later windows
// may run on a replaced worker): "" adds nothing.
DescribedAs merge_described(const DescribedAs& so_far, const DescribedAs& more);

}  // namespace benchgate::workers
