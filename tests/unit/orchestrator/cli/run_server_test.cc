// `orchestrator run --server`: what the client checks itself before it sends a scenario, and
// how it names one the service holds.
#include <gtest/gtest.h>

#include <CLI/CLI.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "orchestrator/cli/exit_codes.h"
#include "orchestrator/cli/run_command.h"

namespace benchgate::cli {
namespace {

class RunServer : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("run_server_test-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
            "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text) {
    const auto path = dir_ / name;
    std::ofstream(path) << text;
    return path.string();
  }
  // run_command's exit code; its stderr in `err`.
  int run(const RunFlags& flags, std::string& err) {
    ::testing::internal::CaptureStderr();
    const int code = run_command(flags);
    err = ::testing::internal::GetCapturedStderr();
    return code;
  }
  std::filesystem::path dir_;
};

// A key that names a file is the service's to refuse (a client may not make it read one), so
// the client says the service's reason, not what its own machine holds. Before, ca_file =
// "/etc/passwd" was read here ("holds no PEM certificate") and a missing secret_file was "no
// such file", where the service would answer that the key is not allowed from a client.
TEST_F(RunServer, AKeyNamingAFileIsRefusedInTheServicesWordsNotJudgedOnTheClient) {
  RunFlags flags;
  flags.server = "127.0.0.1:1";  // never reached: the file is refused before
  flags.files = {write("ca.toml",
                       "name = \"t\"\n[[workloads]]\nname = \"w\"\ntls = true\n"
                       "ca_file = \"/etc/passwd\"\n"),
                 write("secret.toml",
                       "name = \"t\"\n[[workloads]]\nname = \"w\"\nprotocol = \"wamp_rpc\"\n"
                       "auth = { method = \"ticket\", authid = \"a\", secret_file = "
                       "\"no-such-secret\" }\n")};
  std::string err;
  EXPECT_EQ(run(flags, err), kExitInvalidInput) << err;
  EXPECT_NE(err.find("ca.toml:5:1: error: key 'ca_file' is not allowed in a scenario submitted "
                     "to a service"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("error: key 'secret_file' is not allowed in a scenario submitted to a "
                     "service"),
            std::string::npos)
      << err;
  EXPECT_EQ(err.find("PEM"), std::string::npos) << err;
  EXPECT_EQ(err.find("no such file"), std::string::npos) << err;

  // A local run still reads them (and says what it found).
  flags.server.clear();
  flags.files.resize(1);
  EXPECT_EQ(run(flags, err), kExitInvalidInput) << err;
  EXPECT_NE(err.find("PEM"), std::string::npos) << err;
}

}  // namespace
}  // namespace benchgate::cli

namespace benchgate::cli {
namespace {

std::string parsed(CLI::App& app, std::vector<std::string> args) {
  std::vector<const char*> argv = {"orchestrator"};
  for (const std::string& arg : args) argv.push_back(arg.c_str());
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError& e) {
    return e.what();
  }
  return "(parsed)";
}

// A scenario of the service's --scenarios folder is run by name (README: "clients run it by
// name"): before, `run --server` could only send a file's content, and had no such flag.
TEST(RunServerByName, ScenarioNameIsTakenOnePerFlagBesideTheFiles) {
  CLI::App app("benchgate", "orchestrator");
  RunFlags flags;
  add_run_command(app, flags);
  EXPECT_EQ(parsed(app, {"run", "--server", "127.0.0.1:7700", "--scenario-name", "quickstart",
                         "a.toml", "--scenario-name", "nightly.toml"}),
            "(parsed)");
  EXPECT_EQ(flags.files, (std::vector<std::string>{"a.toml"}));
  EXPECT_EQ(flags.scenario_names, (std::vector<std::string>{"quickstart", "nightly.toml"}));
}

TEST_F(RunServer, ScenarioNameNeedsServerAndRunNeedsAScenario) {
  RunFlags flags;
  flags.scenario_names = {"quickstart"};
  std::string err;
  EXPECT_EQ(run(flags, err), kExitInvalidInput);
  EXPECT_EQ(err,
            "error: --scenario-name runs a scenario of an `orchestrator serve` service's "
            "--scenarios folder and needs --server; to run a file here, name the file\n");
  flags.scenario_names.clear();
  EXPECT_EQ(run(flags, err), kExitInvalidInput);
  EXPECT_EQ(err,
            "error: `orchestrator run` needs its files argument: scenario files (TOML); see "
            "`orchestrator run --help`\n");
}

}  // namespace
}  // namespace benchgate::cli
