// --db-busy-timeout's help says what the wait is for in each command: a write for the commands
// that write, opening the database for those that only read.
#include "orchestrator/cli/db_busy_timeout.h"

#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "orchestrator/cli/changes_command.h"
#include "orchestrator/cli/gate_command.h"
#include "orchestrator/cli/history_commands.h"
#include "orchestrator/cli/report_command.h"

namespace benchgate::cli {
namespace {

// The orchestrator's commands that take --db and are not `run`, `calibrate` or `serve`.
struct DbCommands {
  CLI::App app;
  HistoryFlags history;
  ChangesFlags changes;
  ReportFlags report;
  GateFlags gate;
  DbCommands() {
    add_history_commands(app, history);
    add_changes_command(app, changes);
    add_report_command(app, report);
    add_gate_command(app, gate);
  }
  std::string busy_help(const std::vector<std::string>& path) {
    CLI::App* command = &app;
    for (const std::string& name : path) command = command->get_subcommand(name);
    return command->get_option("--db-busy-timeout")->get_description();
  }
};

TEST(DbBusyTimeout, AReadCommandsHelpSpeaksOfOpeningNotOfAWrite) {
  DbCommands commands;
  const std::vector<std::vector<std::string>> readers = {{"runs", "list"},       {"runs", "show"},
                                                         {"baseline", "list"},   {"compare"},
                                                         {"history", "changes"}, {"report"}};
  for (const auto& path : readers) {
    const std::string help = commands.busy_help(path);
    EXPECT_EQ(help, kDbBusyTimeoutReadHelp) << path.front();
    EXPECT_EQ(help.find("a write to the database"), std::string::npos)
        << path.front() << ": " << help;
  }
}

TEST(DbBusyTimeout, AWritingCommandsHelpSpeaksOfAWrite) {
  DbCommands commands;
  for (const auto& path : std::vector<std::vector<std::string>>{
           {"baseline", "add"}, {"baseline", "remove"}, {"gate"}}) {
    EXPECT_EQ(commands.busy_help(path), kDbBusyTimeoutHelp) << path.back();
  }
}

TEST(DbBusyTimeout, AValueOutsideZeroToAnHourNamesTheFlagAndTheValue) {
  auto parsed = parse_db_busy_timeout("2h");
  ASSERT_FALSE(parsed.ok());
  EXPECT_NE(parsed.message().find("--db-busy-timeout '2h'"), std::string::npos) << parsed.message();
  EXPECT_EQ(*parse_db_busy_timeout("500us"), 1);
}

}  // namespace
}  // namespace benchgate::cli
