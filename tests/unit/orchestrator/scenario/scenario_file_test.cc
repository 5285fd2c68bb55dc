// What `validate` and `run` read as a scenario file: a regular file or a pipe of at most
// kMaxScenarioFileBytes. A device or a file too large is refused before it is read, a pipe
// nobody writes after the idle timeout, with the path and the reason (docs/SCENARIOS.md,
// "Scenario files"; pipes in scenario_pipe_test.cc).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <future>
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
    for (const char* name :
         {"/fifo.toml", "/large.toml", "/limit.toml", "/fifo.pem", "/large.pem", "/s.toml"}) {
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

  // Loads `path` on another thread. A load still waiting after a minute is stuck in the open of
  // `fifo` (a FIFO read without the check waits there for a writer): a writer that comes and
  // goes at once lets it go on, and the test fails instead of hanging.
  LoadResult load_without_hanging(const std::string& path, const std::string& fifo, bool& waited,
                                  const LoadOptions& options = {}) {
    auto load = std::async(std::launch::async,
                           [path, options] { return load_scenario_file(path, options); });
    waited = load.wait_for(std::chrono::minutes(1)) != std::future_status::ready;
    if (waited) {
      const int writer = ::open(fifo.c_str(), O_RDWR | O_CLOEXEC);
      if (writer >= 0) ::close(writer);
    }
    return load.get();
  }

  std::string dir_;
};

// A named pipe is read as a pipe; one nobody writes ends in an error after the idle timeout,
// never in a wait for a writer that does not come (the open itself waited once).
TEST_F(ScenarioFileTest, AFifoWithoutAWriterEndsInAnErrorInsteadOfWaitingForOne) {
  const std::string fifo = dir_ + "/fifo.toml";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  LoadOptions options;
  options.pipe_idle_timeout = std::chrono::milliseconds(100);
  bool waited = false;
  LoadResult r = load_without_hanging(fifo, fifo, waited, options);
  EXPECT_FALSE(waited) << "the load waited for a writer";
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(test_support::diagnostics_text(r),
            fifo + ": error: no data from the pipe for 100ms, and its writer has not closed it\n");
}

TEST_F(ScenarioFileTest, ADeviceIsRefusedBeforeItIsRead) {
  // /dev/zero would be read without end; /dev/null is the same kind of file, and read as a
  // file it was an empty scenario. Pipes are read; devices are not.
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

// The files a scenario's keys name are read as the scenario file is: a FIFO or a file over the
// limit is refused at the key, saying what it is, and a file is opened once, so the file
// checked is the file read. Before, a check by name came first ("no such file" for a FIFO) and a
// CA file was then read whole, whatever its size.
TEST_F(ScenarioFileTest, AFifoOrALargeFileNamedByAKeyIsRefusedAtTheKey) {
  const std::string fifo = dir_ + "/fifo.pem";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string large = dir_ + "/large.pem";
  {
    std::ofstream out(large, std::ios::binary);
    out << "-----BEGIN CERTIFICATE-----\n" << std::string(kMaxScenarioFileBytes, 'A') << "\n";
  }
  const std::string scenario = dir_ + "/s.toml";
  const std::string head = "name = \"s\"\n[[workloads]]\nname = \"w\"\n";
  const std::string tls = "tls = true\nca_file = ";
  const std::string wamp =
      "protocol = \"wamp_rpc\"\nauth = { method = \"ticket\", authid = \"a\", secret_file = ";
  const struct {
    std::string body;
    std::string expected;
  } cases[] = {
      {tls + "\"fifo.pem\"\n", "5:11: error: key 'ca_file': 'fifo.pem' (read as '" + fifo +
                                   "') is a FIFO (named pipe), not a regular file"},
      {tls + "\"large.pem\"\n", "5:11: error: key 'ca_file': 'large.pem' (read as '" + large +
                                    "') is larger than 4194304 bytes, the most it may hold"},
      {wamp + "\"fifo.pem\" }\n", "5:57: error: key 'secret_file': 'fifo.pem' (read as '" + fifo +
                                      "') is a FIFO (named pipe), not a regular file"},
  };
  for (const auto& c : cases) {
    std::ofstream(scenario, std::ios::binary) << head << c.body;
    bool waited = false;
    LoadResult r = load_without_hanging(scenario, fifo, waited);
    EXPECT_FALSE(waited) << "the load waited for a writer: " << c.body;
    ASSERT_FALSE(r.ok()) << c.body;
    EXPECT_EQ(test_support::diagnostics_text(r), scenario + ":" + c.expected + "\n") << c.body;
  }
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
