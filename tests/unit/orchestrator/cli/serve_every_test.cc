// `orchestrator serve --every` and the files of its --scenarios folder: each round submits
// every file, so two files of one scenario name would be one scenario's history and series.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "orchestrator/cli/exit_codes.h"
#include "orchestrator/cli/serve_command.h"

namespace benchgate::cli {
namespace {

// Before, the service started, and each round ran a.toml and b.toml as scenario 'tiny' (the log
// said "scheduled job 1 (tiny)", "scheduled job 2 (tiny)"), their runs one series. Refused as
// serve starts, naming both files, before anything listens or the database is opened.
TEST(ServeEvery, TwoFilesOfOneScenarioNameAreRefusedAtStartNamingBoth) {
  const auto dir =
      std::filesystem::temp_directory_path() /
      ("serve_every_test-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
  std::filesystem::create_directories(dir);
  const std::string workload = "[[workloads]]\nname = \"w\"\nprotocol = \"http1\"\n";
  std::ofstream(dir / "a.toml") << "name = \"tiny\"\n" << workload;
  std::ofstream(dir / "b.toml") << "name = \"tiny\"\n" << workload;
  std::ofstream(dir / "c.toml") << "name = \"other\"\n" << workload;
  ServeFlags flags;
  flags.scenarios_dir = dir.string();
  flags.every = "1h";
  flags.listen = "127.0.0.1:0";
  flags.metrics_listen = "127.0.0.1:0";
  flags.db_path = (dir / "never.db").string();
  ::testing::internal::CaptureStderr();
  const int code = serve_command(flags);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(code, kExitInvalidInput) << err;
  EXPECT_EQ(err,
            "error: the --scenarios folder's files a.toml and b.toml are both scenario 'tiny': "
            "--every would run them as one scenario, mixing their runs' history and metrics; "
            "give each file a name of its own\n");
  EXPECT_FALSE(std::filesystem::exists(dir / "never.db"));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace benchgate::cli
