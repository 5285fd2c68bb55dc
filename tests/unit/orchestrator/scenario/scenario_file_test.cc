// What `validate` and `run` read as a scenario file: a regular file of at most
// kMaxScenarioFileBytes. A FIFO, a device or a file too large is refused before it is read,
// with the path and the reason (docs/SCENARIOS.md, "Scenario files").
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "orchestrator/scenario/scenario_loader.h"
#include "scenario_test_support.h"

namespace benchgate::scenario {
namespace {

class ScenarioFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = ::testing::TempDir() + "scenario_file_XXXXXX";
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    for (const char* name : {"/fifo.toml", "/large.toml", "/limit.toml"}) {
      ::unlink((dir_ + name).c_str());
    }
    ::rmdir(dir_.c_str());
  }

  // A valid scenario padded with comment lines to exactly `bytes` bytes.
  std::string scenario_of_size(const std::string& name, uint64_t bytes) {
    std::string text = "name = \"s\"\n[[workloads]]\nname = \"w\"\n";
    const std::string line = "# " + std::string(77, 'x') + "\n";
    while (text.size() + line.size() <= bytes) text += line;
    text += std::string(bytes - text.size() - 1, '#') + "\n";
    const std::string path = dir_ + name;
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }

  std::string dir_;
};

TEST_F(ScenarioFileTest, AFifoIsRefusedAtOnceInsteadOfWaitingForAWriter) {
  const std::string fifo = dir_ + "/fifo.toml";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // Before the check, the open itself waited for a writer that never comes.
  LoadResult r = load_scenario_file(fifo);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(test_support::diagnostics_text(r),
            fifo + ": error: is a FIFO (named pipe), not a regular file\n");
}

TEST_F(ScenarioFileTest, ADeviceIsRefusedBeforeItIsRead) {
  // /dev/zero would be read without end; /dev/null is the same kind of file, and read as a
  // file it was an empty scenario.
  LoadResult r = load_scenario_file("/dev/null");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(test_support::diagnostics_text(r),
            "/dev/null: error: is a character device, not a regular file\n");
}

TEST_F(ScenarioFileTest, AFileLargerThanTheLimitIsRefusedAndOneAtTheLimitIsRead) {
  const std::string limit = scenario_of_size("/limit.toml", kMaxScenarioFileBytes);
  LoadResult read = load_scenario_file(limit);
  EXPECT_TRUE(read.ok()) << test_support::diagnostics_text(read);
  const std::string large = scenario_of_size("/large.toml", kMaxScenarioFileBytes + 1);
  LoadResult refused = load_scenario_file(large);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(test_support::diagnostics_text(refused),
            large + ": error: is larger than 4194304 bytes, the most it may hold\n");
}

TEST_F(ScenarioFileTest, AnUnreadableFileSaysWhy) {
  if (::geteuid() == 0) GTEST_SKIP() << "root reads a file of mode 0000";
  const std::string path = scenario_of_size("/limit.toml", 100);
  ASSERT_EQ(::chmod(path.c_str(), 0), 0);
  LoadResult r = load_scenario_file(path);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(test_support::diagnostics_text(r),
            path + ": error: cannot read the scenario file: Permission denied\n");
}

}  // namespace
}  // namespace benchgate::scenario
