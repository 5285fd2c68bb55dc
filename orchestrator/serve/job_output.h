// A stdio stream whose text becomes a job's output events, so that the report code that
// prints to FILE* (tables, RESULT lines, progress log lines) is what a remote client sees.
#pragma once

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "orchestrator/serve/job.h"

namespace benchgate::serve {

struct FileCloser {
  void operator()(std::FILE* f) const {
    if (f != nullptr) std::fclose(f);
  }
};
using UniqueFile = std::unique_ptr<std::FILE, FileCloser>;

// Each run of complete lines is one JobOutput event (a last line without its end goes when the
// stream is closed), with every "FOLDER/" of `private_folders` taken out (client_paths.h).
UniqueFile open_job_output(Job& job, bool to_stderr, std::vector<std::string> private_folders = {});

}  // namespace benchgate::serve
