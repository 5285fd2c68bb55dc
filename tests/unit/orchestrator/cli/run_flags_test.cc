// Flags that take a list (--workers-at, --label) take one value each, so that a scenario file
// after one is read as the file it is: before, `run --workers-at 127.0.0.1:7800 s.toml` (or
// `run --label k=v s.toml`) took s.toml for a second address (label) and said the run had no
// file.
#include <gtest/gtest.h>

#include <CLI/CLI.hpp>

#include <map>
#include <string>
#include <vector>

#include "orchestrator/cli/exit_codes.h"
#include "orchestrator/cli/run_command.h"

namespace benchgate::cli {
namespace {

std::string parse(CLI::App& app, std::vector<std::string> args) {
  std::vector<const char*> argv = {"orchestrator"};
  for (const std::string& arg : args) argv.push_back(arg.c_str());
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError& e) {
    return e.what();
  }
  return "(parsed)";
}

TEST(RunFlags, AFileAfterWorkersAtIsAFileNotASecondAddress) {
  CLI::App app("benchgate", "orchestrator");
  RunFlags flags;
  add_run_command(app, flags);
  EXPECT_EQ(parse(app, {"run", "--workers-at", "127.0.0.1:7800", "s.toml", "--workers-at",
                        "127.0.0.1:7801,127.0.0.1:7802", "t.toml"}),
            "(parsed)");
  EXPECT_EQ(flags.files, (std::vector<std::string>{"s.toml", "t.toml"}));
  EXPECT_EQ(flags.workers.addresses,
            (std::vector<std::string>{"127.0.0.1:7800", "127.0.0.1:7801", "127.0.0.1:7802"}));
}

// The help says what the parser does: one value to each flag, no `...` after it (CLI11 writes
// `...` after the value of a flag that takes several).
TEST(RunFlags, TheHelpShowsOneValueToEachListFlag) {
  CLI::App app("benchgate", "orchestrator");
  RunFlags flags;
  add_run_command(app, flags);
  const std::string help = app.get_subcommand("run")->help();
  for (const std::string flag : {"--label ", "--workers-at "}) {
    const size_t at = help.find("  " + flag);
    ASSERT_NE(at, std::string::npos) << flag << help;
    const std::string line = help.substr(at, help.find('\n', at) - at);
    const std::string value = line.substr(0, line.find("  ", flag.size() + 2));
    EXPECT_EQ(value.find("..."), std::string::npos) << line;
  }
}

TEST(RunFlags, AFileAfterALabelIsAFileNotASecondLabel) {
  CLI::App app("benchgate", "orchestrator");
  RunFlags flags;
  add_run_command(app, flags);
  EXPECT_EQ(parse(app, {"run", "--label", "team=payments", "s.toml", "--label=env=ci", "t.toml"}),
            "(parsed)");
  EXPECT_EQ(flags.files, (std::vector<std::string>{"s.toml", "t.toml"}));
  EXPECT_EQ(flags.labels, (std::vector<std::string>{"team=payments", "env=ci"}));
}

TEST(RunFlags, ASecondLabelAfterOneLabelFlagIsToldToTakeItsOwnFlag) {
  // `--label a=b c=d`: c=d is a file argument now, and the run says what it is before it looks
  // for a scenario file of that name (exit 2).
  CLI::App app("benchgate", "orchestrator");
  RunFlags flags;
  add_run_command(app, flags);
  EXPECT_EQ(parse(app, {"run", "s.toml", "--label", "team=payments", "env=ci-no-such-file"}),
            "(parsed)");
  EXPECT_EQ(flags.labels, (std::vector<std::string>{"team=payments"}));
  EXPECT_EQ(flags.files, (std::vector<std::string>{"s.toml", "env=ci-no-such-file"}));
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(run_command(flags), kExitInvalidInput);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(),
            "error: 'env=ci-no-such-file' is no scenario file (none has that name); a label is "
            "given as --label KEY=VALUE, one to each --label\n");
}

// A key given twice was stored with its last value, the other dropped silently: refused, naming
// both values.
TEST(RunFlags, ALabelKeyGivenTwiceIsRefusedNamingBothValues) {
  auto twice = parse_labels({"a=b", "ci=yes", "a=c"});
  ASSERT_FALSE(twice.ok());
  EXPECT_EQ(twice.message(),
            "--label key 'a' is given twice ('a=b' and 'a=c'): a key takes one value; give it "
            "once");
  auto labels = parse_labels({"a=b", "ci=yes"});
  ASSERT_TRUE(labels.ok()) << labels.message();
  EXPECT_EQ(*labels, (std::map<std::string, std::string>{{"a", "b"}, {"ci", "yes"}}));
}

// Each flag reaches its own field of what `run --server` submits. A positional initializer had
// put --strict into the deferred-promote flag inserted before it, so a --server run was
// submitted without --strict and marked deferred.
TEST(RunFlags, EachSubmissionFlagReachesItsOwnField) {
  RunFlags flags;
  flags.commit = "abc123";
  flags.branch = "main";
  flags.baseline = "base";
  flags.promote = "nightly";
  flags.strict = true;
  const serve::JobOptions job = job_options(flags, {{"ci", "yes"}});
  EXPECT_EQ(job.commit, "abc123");
  EXPECT_EQ(job.branch, "main");
  EXPECT_EQ(job.labels, (std::map<std::string, std::string>{{"ci", "yes"}}));
  EXPECT_EQ(job.baseline, "base");
  EXPECT_EQ(job.promote, "nightly");
  EXPECT_TRUE(job.strict);
  EXPECT_FALSE(job.promote_deferred);
  EXPECT_EQ(job.promote_key_sha256, "");
  EXPECT_EQ(job.max_run_ns, 0);
  EXPECT_FALSE(job.allowed_commands.has_value());
  flags.strict = false;
  EXPECT_FALSE(job_options(flags, {}).strict);
}

}  // namespace
}  // namespace benchgate::cli
