// Translation between benchgate.v1 messages and the engine's domain types. The only place
// where the worker's domain code and protobuf meet.
#pragma once

#include "benchgate/v1/worker.pb.h"
#include "worker/engine/window_result.h"
#include "worker/engine/workload.h"

namespace benchgate::worker {

// Unset proto3 fields take the domain defaults where 0 or "" cannot be meant literally
// (method "", target "", expect_status 0); everything else is taken as given.
WorkloadSpec workload_from_proto(const v1::WorkloadSpec& proto);
WindowCommand window_from_proto(const v1::Window& proto);

void progress_to_proto(const ProgressReport& report, v1::Progress* proto);
void result_to_proto(const WindowResult& result, v1::WindowResult* proto);

}  // namespace benchgate::worker
