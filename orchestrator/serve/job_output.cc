// See job_output.h. glibc's fopencookie turns writes into calls of our function.
#include "orchestrator/serve/job_output.h"

#include <stdio.h>

#include <string>

#include "orchestrator/serve/client_paths.h"

namespace benchgate::serve {
namespace {

// A line longer than this goes out in pieces (each still without the folders it holds whole).
constexpr size_t kMaxPendingBytes = 64 * 1024;

struct Sink {
  Job* job;
  bool to_stderr;
  std::vector<std::string> private_folders;
  // Text after the last complete line: a folder's name split over two writes (a line longer
  // than the stream's buffer) is taken out once the line is whole.
  std::string pending;

  void emit(size_t bytes) {
    job->emit(JobOutput{to_stderr, without_folders(pending.substr(0, bytes), private_folders)});
    pending.erase(0, bytes);
  }
};

ssize_t write_sink(void* cookie, const char* data, size_t size) {
  auto* sink = static_cast<Sink*>(cookie);
  sink->pending.append(data, size);
  const size_t line_end = sink->pending.rfind('\n');
  if (line_end != std::string::npos) {
    sink->emit(line_end + 1);
  } else if (sink->pending.size() > kMaxPendingBytes) {
    sink->emit(sink->pending.size());
  }
  return static_cast<ssize_t>(size);
}

int close_sink(void* cookie) {
  auto* sink = static_cast<Sink*>(cookie);
  if (!sink->pending.empty()) sink->emit(sink->pending.size());
  delete sink;
  return 0;
}

}  // namespace

UniqueFile open_job_output(Job& job, bool to_stderr, std::vector<std::string> private_folders) {
  cookie_io_functions_t functions{};
  functions.write = write_sink;
  functions.close = close_sink;
  auto* sink = new Sink{&job, to_stderr, std::move(private_folders), {}};
  std::FILE* f = fopencookie(sink, "w", functions);
  if (f == nullptr) {
    delete sink;
    return nullptr;
  }
  setvbuf(f, nullptr, _IOLBF, 4096);
  return UniqueFile(f);
}

}  // namespace benchgate::serve
