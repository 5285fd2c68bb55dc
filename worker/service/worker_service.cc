#include "worker/service/worker_service.h"

#include <spdlog/spdlog.h>

#include <thread>

#include "common/command_line/version.h"
#include "common/time/clock.h"
#include "common/workload/run_stream_end.h"
#include "worker/adapters/adapter_stream.h"
#include "worker/engine/engine.h"
#include "worker/engine/validate.h"
#include "worker/service/proto_convert.h"
#include "worker/service/window_runner.h"

namespace benchgate::worker {

grpc::Status WorkerService::Describe(grpc::ServerContext*, const v1::DescribeRequest*,
                                     v1::DescribeResponse* response) {
  if (adapter_) {
    adapters::describe_tool(*adapter_, response);
    return grpc::Status::OK;
  }
  response->set_name("benchgate-worker");
  response->set_version(command_line::version());
  response->add_protocols("http1");
  response->add_protocols("http2");
  response->add_protocols("wamp_rpc");
  response->add_protocols("wamp_pubsub");
  response->add_protocols("wamp_transfer");
  response->add_load_models("closed");
  response->add_load_models("open");
  response->set_max_threads(std::thread::hardware_concurrency());
  return grpc::Status::OK;
}

grpc::Status WorkerService::Run(grpc::ServerContext* context,
                                grpc::ServerReaderWriter<v1::RunEvent, v1::RunCommand>* stream) {
  grpc::Status status = run_stream(context, stream);
  // This worker is alive and chose the status (a connect it could not make, a spec it refuses):
  // said so, the orchestrator reports it at once rather than wait for this process to die
  // (docs/WORKER_PROTOCOL.md "Errors").
  if (!status.ok()) {
    context->AddTrailingMetadata(run_stream::kEndedByWorkerKey, run_stream::kEndedByWorkerValue);
  }
  return status;
}

grpc::Status WorkerService::run_stream(
    grpc::ServerContext* context, grpc::ServerReaderWriter<v1::RunEvent, v1::RunCommand>* stream) {
  v1::RunCommand command;
  if (!stream->Read(&command)) return grpc::Status::OK;  // closed before it began
  if (!command.has_spec()) {
    return {grpc::StatusCode::INVALID_ARGUMENT,
            "the first message of a Run stream must be a WorkloadSpec"};
  }
  WorkloadSpec spec = workload_from_proto(command.spec());
  spec.http1_io = http1_io_;
  if (auto valid = validate_workload(spec); !valid) {
    spdlog::warn("rejected workload: {}", valid.message());
    return {grpc::StatusCode::INVALID_ARGUMENT, valid.message()};
  }
  if (adapter_) return adapters::run_adapter_stream(*adapter_, spec, *context, *stream);
  auto engine = Engine::start(spec);
  if (!engine) {
    spdlog::warn("workload '{}': {}", spec.name, engine.message());
    return {grpc::StatusCode::UNAVAILABLE, "workload '" + spec.name + "': " + engine.message()};
  }
  spdlog::info("workload '{}': {} connections to {} on {} threads, ready", spec.name,
               (*engine)->connections(), spec.address, (*engine)->threads());
  v1::RunEvent ready;
  ready.mutable_ready()->set_connections((*engine)->connections());
  ready.mutable_ready()->set_threads((*engine)->threads());
  ready.mutable_ready()->set_clock_exchange(true);
  if (!stream->Write(ready)) return grpc::Status::OK;  // the orchestrator went away

  grpc::Status status = grpc::Status::OK;
  {
    WindowRunner runner(**engine, *stream);
    // Read returns false on WritesDone or cancel: both stop the load at once.
    while (stream->Read(&command)) {
      if (command.has_clock_probe()) {
        // Answered here, at once: the receive instant is taken as soon as Read returns, the
        // send instant as late as possible (docs/WORKER_PROTOCOL.md "Clock exchange").
        const int64_t received = steady_now_ns();
        v1::RunEvent reply;
        reply.mutable_clock_reply()->set_sequence(command.clock_probe().sequence());
        reply.mutable_clock_reply()->set_receive_ns(received);
        reply.mutable_clock_reply()->set_send_ns(steady_now_ns());
        if (!runner.write(reply)) break;
        continue;
      }
      if (!command.has_window()) {
        status = {grpc::StatusCode::INVALID_ARGUMENT,
                  "after the WorkloadSpec a Run stream carries only Window and ClockProbe "
                  "commands"};
        break;
      }
      const WindowCommand window = window_from_proto(command.window());
      if (auto valid = validate_window(window); !valid) {
        status = {grpc::StatusCode::INVALID_ARGUMENT, valid.message()};
        break;
      }
      runner.submit(window);
    }
    (*engine)->stop();
  }
  spdlog::info("workload '{}': stream ended, connections closed", spec.name);
  return status;
}

}  // namespace benchgate::worker
