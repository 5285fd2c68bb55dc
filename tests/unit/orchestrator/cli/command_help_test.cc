// What `--help` and a missing argument say: the shared wording of a missing positional argument,
// and options whose help states their default and limits as every other option does.
#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "orchestrator/cli/calibrate_command.h"
#include "orchestrator/cli/gate_command.h"
#include "orchestrator/cli/history_commands.h"
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

// A value the argument's type does not take reads as a sentence too (it said CLI11's "Could not
// convert: RUN_A = abc").
TEST(CommandHelp, AValueOfTheWrongTypeIsNamedInAPlainSentence) {
  CLI::App app("benchgate", "orchestrator");
  app.require_subcommand(1);
  HistoryFlags history;
  add_history_commands(app, history);
  GateFlags gate;
  add_gate_command(app, gate);
  EXPECT_EQ(parse_error_for(app, {"compare", "abc", "1"}),
            "`orchestrator compare` takes a whole number as its RUN_A argument, not 'abc': the "
            "old run; see `orchestrator compare --help`");
  EXPECT_EQ(parse_error_for(app, {"gate", "x\ny"}),
            "`orchestrator gate` takes a whole number as its run argument, not 'x\\ny': run id "
            "(see `orchestrator runs list`); see `orchestrator gate --help`");
  EXPECT_EQ(parse_error_for(app, {"runs", "list", "--limit", "ten"}),
            "`orchestrator runs list` takes a whole number as --limit, not 'ten': at most this "
            "many runs (0: every run); see `orchestrator runs list --help`");
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
