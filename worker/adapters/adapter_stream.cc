#include "worker/adapters/adapter_stream.h"

#include <spdlog/spdlog.h>

#include <thread>

#include "worker/adapters/tool_args.h"
#include "worker/adapters/tool_session.h"
#include "worker/engine/validate.h"
#include "worker/service/proto_convert.h"

namespace benchgate::worker::adapters {

void describe_tool(const Tool& tool, v1::DescribeResponse* response) {
  response->set_name(tool.name);
  response->set_version(tool.version);
  response->add_protocols("http1");
  // What check_workload lets each tool run (tool_args.h).
  if (tool.kind == ToolKind::kH2load) response->add_protocols("http2");
  response->add_load_models("closed");
  response->set_max_threads(std::thread::hardware_concurrency());
}

grpc::Status run_adapter_stream(const Tool& tool, const WorkloadSpec& spec,
                                grpc::ServerContext& context,
                                grpc::ServerReaderWriter<v1::RunEvent, v1::RunCommand>& stream) {
  if (auto valid = check_workload(tool.kind, spec); !valid) {
    spdlog::warn("rejected workload: {}", valid.message());
    return {grpc::StatusCode::INVALID_ARGUMENT, valid.message()};
  }
  auto session = ToolSession::start(tool, spec);
  if (!session) {
    spdlog::warn("workload '{}': {}", spec.name, session.message());
    return {grpc::StatusCode::UNAVAILABLE, "workload '" + spec.name + "': " + session.message()};
  }
  spdlog::info("workload '{}': {} runs {} connections to {} on {} threads per window, ready",
               spec.name, tool.label(), spec.connections, spec.address, (*session)->threads());
  v1::RunEvent ready;
  ready.mutable_ready()->set_connections((*session)->connections());
  ready.mutable_ready()->set_threads((*session)->threads());
  if (!stream.Write(ready)) return grpc::Status::OK;  // the orchestrator went away

  const auto cancelled = [&context] { return context.IsCancelled(); };
  v1::RunCommand command;
  // Read returns false on WritesDone or cancel; windows run between reads.
  while (stream.Read(&command)) {
    if (!command.has_window()) {
      return {grpc::StatusCode::INVALID_ARGUMENT,
              "after the WorkloadSpec a Run stream carries only Window commands"};
    }
    const WindowCommand window = window_from_proto(command.window());
    if (auto valid = validate_window(window); !valid) {
      return {grpc::StatusCode::INVALID_ARGUMENT, valid.message()};
    }
    if (auto valid = check_window(tool.kind, window); !valid) {
      spdlog::warn("rejected window: {}", valid.message());
      return {grpc::StatusCode::INVALID_ARGUMENT, valid.message()};
    }
    auto result = (*session)->run_window(window, cancelled);
    if (!result) {
      if (context.IsCancelled()) break;  // the tool was killed because the stream ended
      spdlog::warn("workload '{}': {}", spec.name, result.message());
      return {grpc::StatusCode::UNAVAILABLE, "workload '" + spec.name + "': " + result.message()};
    }
    spdlog::info("window {}{}: {} reports {} operations, {} successes", window.index,
                 window.measured ? "" : " (warm-up)", tool.name, result->operations,
                 result->successes);
    v1::RunEvent event;
    result_to_proto(*result, event.mutable_result());
    if (!stream.Write(event)) {
      spdlog::warn("the Run stream broke while window {} ran", window.index);
      break;
    }
  }
  spdlog::info("workload '{}': stream ended", spec.name);
  return grpc::Status::OK;
}

}  // namespace benchgate::worker::adapters
