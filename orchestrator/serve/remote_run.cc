// See remote_run.h.
#include "orchestrator/serve/remote_run.h"

#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "benchgate/v1/orchestrator.grpc.pb.h"
#include "orchestrator/app/interrupt.h"
#include "orchestrator/cli/exit_codes.h"

namespace benchgate::serve {
namespace {

// Submission refusals are invalid input (nothing started); a service that cannot be reached
// or fails mid-run is a run error.
int exit_code_for(const grpc::Status& status) {
  switch (status.error_code()) {
    case grpc::StatusCode::INVALID_ARGUMENT:
    case grpc::StatusCode::NOT_FOUND:
    case grpc::StatusCode::PERMISSION_DENIED:
      return cli::kExitInvalidInput;
    default:
      return cli::kExitRunError;
  }
}

void print_refusal(const std::string& server, const grpc::Status& status) {
  std::string message = status.error_message();
  if (!message.empty() && message.back() == '\n') message.pop_back();
  if (status.error_code() == grpc::StatusCode::UNAVAILABLE) {
    std::fprintf(stderr, "error: service %s: %s\n", server.c_str(), message.c_str());
  } else if (message.find(": error: ") != std::string::npos) {
    std::fprintf(stderr, "%s\n", message.c_str());  // diagnostics already name file:line
  } else {
    std::fprintf(stderr, "error: %s\n", message.c_str());
  }
}

// Streams one job; returns its exit code.
void cancel(v1::Orchestrator::Stub& stub, uint64_t job_id) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  v1::CancelRequest request;
  request.set_job_id(job_id);
  v1::RunStatus ignored;
  stub.Cancel(&context, request, &ignored);
}

int watch(v1::Orchestrator::Stub& stub, uint64_t job_id, const std::string& server) {
  grpc::ClientContext context;
  v1::WatchRequest request;
  request.set_job_id(job_id);
  auto reader = stub.Watch(&context, request);
  v1::WatchEvent event;
  int exit_code = cli::kExitRunError;
  bool ended = false;
  bool cancel_sent = false;
  while (reader->Read(&event)) {
    if (app::interrupted() && !cancel_sent) {
      // Ctrl-C here cancels the run there; the stream then reports its end.
      cancel(stub, job_id);
      cancel_sent = true;
    }
    if (event.has_output()) {
      std::FILE* f = event.output().stream() == v1::RunOutput::STDERR ? stderr : stdout;
      std::fputs(event.output().text().c_str(), f);
      std::fflush(f);
    } else if (event.has_status()) {
      const auto& s = event.status();
      if (s.state() == v1::RunStatus::FINISHED || s.state() == v1::RunStatus::CANCELLED) {
        exit_code = s.exit_code();
        ended = true;
        if (s.state() == v1::RunStatus::CANCELLED && s.run_id() == 0) {
          std::fprintf(stderr, "job %llu cancelled: %s\n", static_cast<unsigned long long>(job_id),
                       s.error().c_str());
        }
      }
    }
  }
  const grpc::Status status = reader->Finish();
  if (!ended) {
    std::fprintf(stderr, "error: lost the stream of job %llu on %s: %s\n",
                 static_cast<unsigned long long>(job_id), server.c_str(),
                 status.error_message().c_str());
    return cli::kExitRunError;
  }
  return exit_code;
}

}  // namespace

int remote_run(const RemoteRunOptions& options) {
  auto channel = grpc::CreateChannel(options.server, grpc::InsecureChannelCredentials());
  auto stub = v1::Orchestrator::NewStub(channel);
  // Every file is submitted (and so validated by the service) before any output is shown;
  // one refusal cancels the others, as a local run starts nothing when one file is invalid.
  std::vector<uint64_t> jobs;
  for (const auto& file : options.files) {
    std::ifstream in(file, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    if (!in) {
      std::fprintf(stderr, "%s: error: cannot read the file\n", file.c_str());
      for (uint64_t id : jobs) cancel(*stub, id);
      return cli::kExitInvalidInput;
    }
    v1::SubmitRequest request;
    request.mutable_content()->set_file_name(file);
    request.mutable_content()->set_text(text.str());
    request.set_commit(options.job.commit);
    request.set_branch(options.job.branch);
    for (const auto& [k, v] : options.job.labels) (*request.mutable_labels())[k] = v;
    request.set_baseline(options.job.baseline);
    request.set_promote(options.job.promote);
    request.set_strict(options.job.strict);

    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
    v1::SubmitResponse response;
    const grpc::Status status = stub->Submit(&context, request, &response);
    if (!status.ok()) {
      print_refusal(options.server, status);
      for (uint64_t id : jobs) cancel(*stub, id);
      return exit_code_for(status);
    }
    std::fprintf(stderr, "submitted %s to %s as job %llu (%u ahead)\n", file.c_str(),
                 options.server.c_str(), static_cast<unsigned long long>(response.job_id()),
                 response.queue_position());
    jobs.push_back(response.job_id());
  }
  int exit_code = cli::kExitOk;
  for (uint64_t id : jobs) {
    if (app::interrupted()) {
      cancel(*stub, id);
      exit_code = cli::kExitRunError;
      continue;
    }
    exit_code = std::max(exit_code, watch(*stub, id, options.server));
  }
  return exit_code;
}

}  // namespace benchgate::serve
