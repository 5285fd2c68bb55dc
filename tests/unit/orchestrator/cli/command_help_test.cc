// What `--help` and a missing argument say: the shared wording of a missing positional argument,
// and options whose help states their default and limits as every other option does.
#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "orchestrator/cli/calibrate_command.h"
#include "orchestrator/cli/gate_command.h"
#include "orchestrator/cli/history_commands.h"
#include "orchestrator/cli/report_command.h"
#include "orchestrator/cli/run_command.h"
#include "orchestrator/cli/serve_command.h"
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
  EXPECT_EQ(timeout->get_description(),
            "Limit for every step but the last: after it the worker gets SIGTERM and up to 5 s "
            "more to exit (the rule 'exits on SIGTERM')");
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

// The remote workers' flags are declared once (add_remote_worker_options): `serve` gives them
// the help and the limits `run` gives them, and fills the same RemoteWorkerFlags.
TEST(CommandHelp, ServeDeclaresTheRemoteWorkerFlagsAsRunDoes) {
  CLI::App app("benchgate", "orchestrator");
  RunFlags run;
  ServeFlags serve;
  add_run_command(app, run);
  add_serve_command(app, serve);
  for (const char* flag : {"--workers-at", "--workers", "--workers-wait", "--worker-token-file"}) {
    const CLI::Option* in_run = app.get_subcommand("run")->get_option(flag);
    const CLI::Option* in_serve = app.get_subcommand("serve")->get_option(flag);
    EXPECT_EQ(in_serve->get_description(), in_run->get_description()) << flag;
    EXPECT_EQ(in_serve->get_default_str(), in_run->get_default_str()) << flag;
  }
  EXPECT_EQ(parse_error_for(app, {"serve", "--scenarios", ".", "--workers", "0"}),
            "`orchestrator serve`: --workers: Value 0 not in range 1 to 1024; see `orchestrator "
            "serve --help`");
  EXPECT_EQ(
      parse_error_for(app, {"serve", "--scenarios", ".", "--workers-at", "127.0.0.1:1,127.0.0.1:2",
                            "--workers", "2", "--workers-wait", "5s", "--worker-token-file", "t"}),
      "(parsed)");
  EXPECT_EQ(serve.workers.addresses, (std::vector<std::string>{"127.0.0.1:1", "127.0.0.1:2"}));
  EXPECT_EQ(serve.workers.count, 2u);
  EXPECT_EQ(serve.workers.wait, "5s");
  EXPECT_EQ(serve.workers.token_file, "t");
}

// `serve` has no --commit or --branch and reads no folder's: its --router-bin said a stored run's
// "commit and branch stay --commit's and --branch's, else this folder's", as run's does.
TEST(CommandHelp, ServeRouterBinSaysWhoseCommitItsRunsStore) {
  CLI::App app("benchgate", "orchestrator");
  RunFlags run;
  ServeFlags serve;
  add_run_command(app, run);
  add_serve_command(app, serve);
  const std::string help =
      app.get_subcommand("serve")->get_option("--router-bin")->get_description();
  EXPECT_EQ(help,
            "Router executable (default: $BENCHGATE_ROUTER_BIN when set, else `router` next to "
            "the orchestrator, else `router` on PATH); a stored run records its path and "
            "build-id, while its commit and branch are the ones its client sent (none for an "
            "--every run), never a folder's");
  EXPECT_EQ(app.get_subcommand("serve")->get_option_no_throw("--commit"), nullptr);
  // run keeps its own: it has the flags the text names.
  EXPECT_NE(app.get_subcommand("run")
                ->get_option("--router-bin")
                ->get_description()
                .find("stay --commit's and --branch's, else this folder's"),
            std::string::npos);
  EXPECT_NE(app.get_subcommand("run")->get_option_no_throw("--commit"), nullptr);
}

// worker-check stores no run: its --router-bin spoke of a stored run's commit and branch.
TEST(CommandHelp, WorkerCheckRouterBinSaysWhatTheRouterIsFor) {
  CLI::App app("benchgate", "orchestrator");
  WorkerCheckFlags flags;
  add_worker_check_command(app, flags);
  EXPECT_EQ(app.get_subcommand("worker-check")->get_option("--router-bin")->get_description(),
            "Router executable (default: $BENCHGATE_ROUTER_BIN when set, else `router` next to "
            "the orchestrator, else `router` on PATH), started as the target of the worker's "
            "load; worker-check stores no run");
}

// "unix:" alone listened on an abstract socket (ss -xl: "@..."), which any local user could
// connect to and submit runs through; the worker's --listen already refused it.
TEST(CommandHelp, ServeRefusesAUnixListenAddressWithoutAPath) {
  CLI::App app("benchgate", "orchestrator");
  ServeFlags serve;
  add_serve_command(app, serve);
  EXPECT_EQ(parse_error_for(app, {"serve", "--scenarios", ".", "--listen", "unix:"}),
            "`orchestrator serve`: --listen: 'unix:' names no PATH after unix:; see "
            "`orchestrator serve --help`");
  EXPECT_EQ(parse_error_for(app, {"serve", "--scenarios", ".", "--listen", "unix:serve.sock"}),
            "(parsed)");
}

// The flag says what the value is, and the message does not say "baseline name" after it.
TEST(CommandHelp, ReportRefusesABadBaselineNameNamingTheFlagOnce) {
  ReportFlags flags;
  flags.run_id = 1;
  flags.baseline = "a b";
  testing::internal::CaptureStderr();
  EXPECT_EQ(report_command(flags), 2);
  EXPECT_EQ(testing::internal::GetCapturedStderr(),
            "error: --baseline 'a b' may contain only letters, digits, '_', '-' and '.'\n");
  flags.baseline = std::string(101, 'x');
  testing::internal::CaptureStderr();
  EXPECT_EQ(report_command(flags), 2);
  EXPECT_EQ(testing::internal::GetCapturedStderr(),
            "error: --baseline must have 1 to 100 characters\n");
}

}  // namespace
}  // namespace benchgate::cli
