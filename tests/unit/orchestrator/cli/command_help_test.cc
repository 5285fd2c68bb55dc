// What `--help` and a missing argument say: the shared wording of a missing positional argument,
// and options whose help states their default and limits as every other option does.
#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "orchestrator/cli/calibrate_command.h"
#include "orchestrator/cli/run_command.h"
#include "orchestrator/cli/usage_mistakes.h"
#include "orchestrator/cli/worker_check_command.h"

namespace benchgate::cli {
namespace {

// The message for `orchestrator ARGS...` as main.cc prints it after "error: ".
std::string parse_error_for(CLI::App& app, std::vector<std::string> args) {
  std::vector<const char*> argv = {"orchestrator"};
  for (const std::string& arg : args) argv.push_back(arg.c_str());
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError& e) {
    return parse_error_message(app, e);
  }
  return "(parsed)";
}

TEST(CommandHelp, AMissingArgumentIsNamedInAPlainSentence) {
  CLI::App app("benchgate", "orchestrator");
  app.require_subcommand(1);
  std::vector<std::string> files;
  add_validate_command(app, files);
  EXPECT_EQ(parse_error_for(app, {"validate"}),
            "`orchestrator validate` needs its files argument: scenario files (TOML); see "
            "`orchestrator validate --help`");
}

TEST(CommandHelp, WorkerCheckTimeoutShowsItsDefaultAsEveryOptionDoes) {
  CLI::App app("benchgate", "orchestrator");
  WorkerCheckFlags flags;
  add_worker_check_command(app, flags);
  const CLI::Option* timeout = app.get_subcommand("worker-check")->get_option("--timeout");
  EXPECT_EQ(timeout->get_description(), "Limit for the whole check");
  EXPECT_EQ(timeout->get_default_str(), "30s");
}

TEST(CommandHelp, CalibrateRunsNamesItsLimits) {
  CLI::App app("benchgate", "orchestrator");
  CalibrateFlags flags;
  add_calibrate_command(app, flags);
  const CLI::Option* runs = app.get_subcommand("calibrate")->get_option("--runs");
  EXPECT_EQ(runs->get_description(), "Runs of the A/A series, from 3 to 1000");
  EXPECT_EQ(runs->get_default_str(), "10");
}

}  // namespace
}  // namespace benchgate::cli
