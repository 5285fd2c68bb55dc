// The Run stream in adapter mode (`worker --adapter h2load|wrk`): the same state machine as
// the bundled engine's (spec, Ready, one result per window, INVALID_ARGUMENT for what cannot
// be run), with each window executed by a ToolSession on the handler thread. The stream is
// only read between windows, so a tool that fails ends the stream at once with a status
// quoting it; a cancelled stream (the orchestrator's abort, or the server shutting down) is
// noticed within milliseconds through ServerContext::IsCancelled and kills the running tool.
#pragma once

#include <grpcpp/grpcpp.h>

#include "benchgate/v1/worker.grpc.pb.h"
#include "worker/adapters/tool.h"
#include "worker/engine/workload.h"

namespace benchgate::worker::adapters {

// Describe's answer for the tool: its name and version, http1, the closed loop.
void describe_tool(const Tool& tool, v1::DescribeResponse* response);

// `spec` has passed validate_workload.
grpc::Status run_adapter_stream(const Tool& tool, const WorkloadSpec& spec,
                                grpc::ServerContext& context,
                                grpc::ServerReaderWriter<v1::RunEvent, v1::RunCommand>& stream);

}  // namespace benchgate::worker::adapters
