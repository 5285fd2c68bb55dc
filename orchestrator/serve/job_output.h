// A stdio stream whose text becomes a job's output events, so that the report code that
// prints to FILE* (tables, RESULT lines, progress log lines) is what a remote client sees.
#pragma once

#include <cstdio>
#include <memory>

#include "orchestrator/serve/job.h"

namespace benchgate::serve {

struct FileCloser {
  void operator()(std::FILE* f) const {
    if (f != nullptr) std::fclose(f);
  }
};
using UniqueFile = std::unique_ptr<std::FILE, FileCloser>;

// Line-buffered: each complete line (or flush) is one JobOutput event.
UniqueFile open_job_output(Job& job, bool to_stderr);

}  // namespace benchgate::serve
