// A log file of this test process's own in the temporary folder, removed when the process
// ends. Each test of processes_test runs as a process of its own (gtest_discover_tests), so
// the name carries the PID, and nothing is left in /tmp after the suite.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <string>
#include <system_error>

namespace benchgate::processes::test_support {

class ProcessLog {
 public:
  explicit ProcessLog(const std::string& prefix)
      : path_(std::filesystem::temp_directory_path() /
              (prefix + std::to_string(::getpid()) + ".log")) {}
  ~ProcessLog() {
    std::error_code ignored;
    std::filesystem::remove(path_, ignored);
  }
  ProcessLog(const ProcessLog&) = delete;
  ProcessLog& operator=(const ProcessLog&) = delete;

  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace benchgate::processes::test_support
