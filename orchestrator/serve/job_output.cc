// See job_output.h. glibc's fopencookie turns writes into calls of our function.
#include "orchestrator/serve/job_output.h"

#include <stdio.h>

#include <string>

namespace benchgate::serve {
namespace {

struct Sink {
  Job* job;
  bool to_stderr;
};

ssize_t write_sink(void* cookie, const char* data, size_t size) {
  auto* sink = static_cast<Sink*>(cookie);
  sink->job->emit(JobOutput{sink->to_stderr, std::string(data, size)});
  return static_cast<ssize_t>(size);
}

int close_sink(void* cookie) {
  delete static_cast<Sink*>(cookie);
  return 0;
}

}  // namespace

UniqueFile open_job_output(Job& job, bool to_stderr) {
  cookie_io_functions_t functions{};
  functions.write = write_sink;
  functions.close = close_sink;
  auto* sink = new Sink{&job, to_stderr};
  std::FILE* f = fopencookie(sink, "w", functions);
  if (f == nullptr) {
    delete sink;
    return nullptr;
  }
  setvbuf(f, nullptr, _IOLBF, 4096);
  return UniqueFile(f);
}

}  // namespace benchgate::serve
