// `orchestrator compare RUN_A RUN_B` through its command wiring, with a real store in a
// temporary folder: which mistake it names first.
#include "orchestrator/cli/history_commands.h"

#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <iostream>
#include <sstream>
#include <string>

#include "orchestrator/store/store.h"
#include "store_test_support.h"

namespace benchgate::cli {
namespace {

using store::testing::TempDir;

class HistoryCommands : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = store::Store::open(path_);
    ASSERT_TRUE(store.ok()) << store.message();
    auto id = (*store)->begin_run(store::testing::test_run_info("quickstart"));
    ASSERT_TRUE(id.ok()) << id.message();
    ASSERT_TRUE((*store)->store_workload(*id, store::testing::test_workload("http_hello")).ok());
    ASSERT_TRUE((*store)->finish_run(*id, "ok", 0).ok());
    run_ = *id;
  }

  // Runs `command_line` (without the program name) against the store; the exit code, and what
  // it wrote to stderr in `err`.
  int run(const std::string& command_line, std::string& err) {
    CLI::App app;
    HistoryFlags flags;
    add_history_commands(app, flags);
    app.parse(command_line + " --db " + path_, false);
    std::ostringstream captured;
    std::streambuf* const old = std::cerr.rdbuf(captured.rdbuf());
    const std::optional<int> code = run_history_command(app, flags);
    std::cerr.rdbuf(old);
    err = captured.str();
    return code.value_or(-1);
  }

  TempDir dir_;
  const std::string path_ = dir_.file("bench.db");
  int64_t run_ = 0;
};

TEST_F(HistoryCommands, CompareOfAMissingRunWithItselfSaysTheRunDoesNotExist) {
  std::string err;
  EXPECT_EQ(run("compare 99 99", err), 2);
  EXPECT_EQ(err, "error: run 99 does not exist\n");
}

TEST_F(HistoryCommands, CompareOfAStoredRunWithItselfIsRefused) {
  const std::string id = std::to_string(run_);
  std::string err;
  EXPECT_EQ(run("compare " + id + " " + id, err), 2);
  EXPECT_EQ(err, "error: compare " + id + " " + id +
                     ": a run compared with itself shows no change; give two different runs\n");
}

TEST_F(HistoryCommands, CompareOfTwoIdsNamesTheOneThatDoesNotExist) {
  std::string err;
  EXPECT_EQ(run("compare " + std::to_string(run_) + " 99", err), 2);
  EXPECT_EQ(err, "error: run 99 does not exist\n");
  EXPECT_EQ(run("compare 98 " + std::to_string(run_), err), 2);
  EXPECT_EQ(err, "error: run 98 does not exist\n");
}

}  // namespace
}  // namespace benchgate::cli
