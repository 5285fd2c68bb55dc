// Child processes: readiness line, exit description, and stop() leaving nothing behind.
#include "orchestrator/processes/child_process.h"

#include "process_log.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <thread>

namespace benchgate::processes {
namespace {

using namespace std::chrono_literals;

// Where this test process's children write their stderr.
const test_support::ProcessLog child_test_log("benchgate-child-test-");

SpawnOptions shell(const std::string& script) {
  SpawnOptions options;
  options.name = "test child";
  options.executable = "/bin/sh";
  options.args = {"-c", script};
  options.stderr_log = child_test_log.path();
  std::filesystem::remove(options.stderr_log);
  return options;
}

TEST(ChildProcess, ReturnsTheReadyLine) {
  auto child = ChildProcess::spawn(shell("echo noise; echo 'READY grpc=127.0.0.1:1'; sleep 30"));
  ASSERT_TRUE(child.ok()) << child.message();
  auto line = (*child)->wait_ready_line(std::chrono::steady_clock::now() + 10s);
  ASSERT_TRUE(line.ok()) << line.message();
  EXPECT_EQ(*line, "READY grpc=127.0.0.1:1");
  EXPECT_TRUE((*child)->running());
  (*child)->stop(100ms);
  EXPECT_FALSE((*child)->running());
}

TEST(ChildProcess, AChildThatExitsBeforeReadyIsExplainedWithItsStderr) {
  auto child = ChildProcess::spawn(shell("echo 'bad flag --x' >&2; exit 2"));
  ASSERT_TRUE(child.ok());
  auto line = (*child)->wait_ready_line(std::chrono::steady_clock::now() + 10s);
  ASSERT_FALSE(line.ok());
  EXPECT_NE(line.message().find("exited with status 2"), std::string::npos) << line.message();
  EXPECT_NE(line.message().find("bad flag --x"), std::string::npos) << line.message();
}

TEST(ChildProcess, ADeadlineWithoutReadyIsAnError) {
  auto child = ChildProcess::spawn(shell("sleep 30"));
  ASSERT_TRUE(child.ok());
  auto line = (*child)->wait_ready_line(std::chrono::steady_clock::now() + 200ms);
  ASSERT_FALSE(line.ok());
  EXPECT_NE(line.message().find("deadline"), std::string::npos);
}

// A worker's author whose READY never arrives is told what stdout showed and where READY goes:
// a line of its own on stdout, flushed (a pipe holds an unflushed print back).
TEST(ChildProcess, ADeadlineWithoutReadyQuotesWhatStdoutShowedAndWhereReadyGoes) {
  const std::string rule =
      "READY grpc=HOST:PORT must be a line of its own on stdout, flushed at once";
  auto message = [](const std::string& script) {
    auto child = ChildProcess::spawn(shell(script));
    EXPECT_TRUE(child.ok());
    if (!child.ok()) return std::string();
    auto line = (*child)->wait_ready_line(std::chrono::steady_clock::now() + 3s);
    EXPECT_FALSE(line.ok());
    return line.ok() ? std::string() : line.error().message;  // without the stderr tail
  };
  EXPECT_EQ(message("echo 'listening on 7'; sleep 30"),
            "test child did not print READY before its deadline (the last line on its stdout "
            "was 'listening on 7'; " +
                rule + ")");
  EXPECT_EQ(message("printf 'READY grpc=127.0.0.1:1'; sleep 30"),
            "test child did not print READY before its deadline (its stdout ends with 'READY "
            "grpc=127.0.0.1:1' and no line break: " +
                rule + ")");
  EXPECT_EQ(message("echo 'READY grpc=127.0.0.1:1' >&2; sleep 30"),
            "test child did not print READY before its deadline (nothing came on its stdout: " +
                rule + ", not on stderr)");
}

// A child that prints megabytes with no line break is refused once its line passes the bound,
// quoting its start, rather than grow the orchestrator's buffer until the deadline (which
// would end the wait with another message).
TEST(ChildProcess, AStdoutLineWithoutEndFailsAtItsBoundQuotingItsStart) {
  auto child = ChildProcess::spawn(
      shell("printf 'READ'; awk 'BEGIN { for (i = 0; i < 400000; i++) printf \"xxxxx\" }'; "
            "sleep 60"));
  ASSERT_TRUE(child.ok()) << child.message();
  auto line = (*child)->wait_ready_line(std::chrono::steady_clock::now() + 60s);
  ASSERT_FALSE(line.ok());
  EXPECT_EQ(line.error().message,
            "test child printed more than 65536 bytes on its stdout with no line break and no "
            "READY (they begin with 'READ" +
                std::string(116, 'x') +
                "...'; READY grpc=HOST:PORT must be a line of its own on stdout, flushed at "
                "once)");
  (*child)->stop(100ms);
}

TEST(ChildProcess, StopKillsAChildThatIgnoresSigterm) {
  auto child = ChildProcess::spawn(shell("trap '' TERM; echo READY; while true; do sleep 1; done"));
  ASSERT_TRUE(child.ok());
  ASSERT_TRUE((*child)->wait_ready_line(std::chrono::steady_clock::now() + 10s).ok());
  const pid_t pid = (*child)->pid();
  (*child)->stop(200ms);
  EXPECT_FALSE((*child)->running());
  EXPECT_NE(::kill(pid, 0), 0);  // gone (and reaped)
  EXPECT_NE((*child)->exit_description().find("signal 9"), std::string::npos);
}

// A wrapper that execs the real program (`sh -c '... exec nghttpd'`) dies as that program: the
// description names it, read from the zombie before it is reaped, not only the wrapper.
TEST(ChildProcess, AChildKilledAfterExecNamesTheProgramItWasRunning) {
  auto child = ChildProcess::spawn(shell("echo READY; exec sleep 30"));
  ASSERT_TRUE(child.ok()) << child.message();
  ASSERT_TRUE((*child)->wait_ready_line(std::chrono::steady_clock::now() + 10s).ok());
  // The shell has exec'd sleep once its comm says so (READY comes before the exec).
  for (int i = 0; i < 1000; ++i) {
    std::ifstream comm("/proc/" + std::to_string((*child)->pid()) + "/comm");
    std::string name;
    if (std::getline(comm, name) && name == "sleep") break;
    std::this_thread::sleep_for(10ms);
  }
  ASSERT_EQ(::kill((*child)->pid(), SIGKILL), 0);
  for (int i = 0; i < 1000 && (*child)->running(); ++i) std::this_thread::sleep_for(10ms);
  EXPECT_EQ((*child)->exit_description(), "(running sleep) killed by signal 9 (Killed)");
}

// `; :` keeps `sleep` from being the script's last command, which a shell may exec in its own
// process (bash 5.1 and later do; dash does not): the child then dies as the shell it started.
TEST(ChildProcess, AChildThatDiesAsTheProgramItStartedNamesNoOther) {
  auto child = ChildProcess::spawn(shell("echo READY; sleep 30; :"));
  ASSERT_TRUE(child.ok()) << child.message();
  ASSERT_TRUE((*child)->wait_ready_line(std::chrono::steady_clock::now() + 10s).ok());
  ASSERT_EQ(::kill((*child)->pid(), SIGKILL), 0);
  for (int i = 0; i < 1000 && (*child)->running(); ++i) std::this_thread::sleep_for(10ms);
  EXPECT_EQ((*child)->exit_description(), "killed by signal 9 (Killed)");
}

// A child names itself (prctl(PR_SET_NAME), or a write to /proc/PID/comm): the name it died
// with is quoted escaped (common/util/shown_text.h), so it can neither colour nor forge a line
// of the terminal's message (before: as it was, an escape sequence and all).
TEST(ChildProcess, TheNameAChildGaveItselfIsQuotedEscaped) {
  auto child =
      ChildProcess::spawn(shell("printf 'x\\033[2Jy' > /proc/$$/comm; echo READY; sleep 30; :"));
  ASSERT_TRUE(child.ok()) << child.message();
  ASSERT_TRUE((*child)->wait_ready_line(std::chrono::steady_clock::now() + 10s).ok());
  ASSERT_EQ(::kill((*child)->pid(), SIGKILL), 0);
  for (int i = 0; i < 1000 && (*child)->running(); ++i) std::this_thread::sleep_for(10ms);
  EXPECT_EQ((*child)->exit_description(), "(running x\\x1b[2Jy) killed by signal 9 (Killed)");
}

TEST(ChildProcess, TheChildLeadsAProcessGroupOfItsOwn) {
  // stop() and the guardian kill the child's group: a child left in the orchestrator's group
  // would take its helpers nowhere (and a group kill would miss it).
  auto child = ChildProcess::spawn(shell("echo READY; sleep 30"));
  ASSERT_TRUE(child.ok()) << child.message();
  ASSERT_TRUE((*child)->wait_ready_line(std::chrono::steady_clock::now() + 10s).ok());
  EXPECT_EQ(::getpgid((*child)->pid()), (*child)->pid());
  (*child)->stop(100ms);
}

TEST(ChildProcess, StopKillsWhatTheChildLeftInItsGroup) {
  auto child = ChildProcess::spawn(shell("sleep 30 & echo \"READY $!\"; wait"));
  ASSERT_TRUE(child.ok()) << child.message();
  auto line = (*child)->wait_ready_line(std::chrono::steady_clock::now() + 10s);
  ASSERT_TRUE(line.ok()) << line.message();
  const pid_t grandchild = std::stoi(line->substr(6));
  (*child)->stop(100ms);
  // The grandchild was adopted by nobody here (no guard in this test), so once killed it is
  // reaped by init or a subreaper; it no longer runs either way.
  bool gone = false;
  for (int i = 0; i < 200 && !gone; ++i) {
    gone = ::kill(grandchild, 0) != 0 || [&] {
      std::ifstream stat("/proc/" + std::to_string(grandchild) + "/stat");
      std::string line;
      std::getline(stat, line);
      auto close = line.rfind(')');
      return close != std::string::npos && line[close + 2] == 'Z';
    }();
    if (!gone) std::this_thread::sleep_for(10ms);
  }
  EXPECT_TRUE(gone);
}

TEST(ChildProcess, TheEnvironmentGetsTheOptionsVariables) {
  auto options = shell("echo \"READY $BENCHGATE_TEST_EXTRA $HOME\"; sleep 30");
  options.environment = {"BENCHGATE_TEST_EXTRA=given", "HOME=/replaced"};
  auto child = ChildProcess::spawn(options);
  ASSERT_TRUE(child.ok()) << child.message();
  auto line = (*child)->wait_ready_line(std::chrono::steady_clock::now() + 10s);
  ASSERT_TRUE(line.ok()) << line.message();
  EXPECT_EQ(*line, "READY given /replaced");
  (*child)->stop(100ms);
}

TEST(ChildProcess, AMissingExecutableIsAClearError) {
  SpawnOptions options = shell("");
  options.executable = "/nonexistent/router";
  auto child = ChildProcess::spawn(options);
  ASSERT_FALSE(child.ok());
  EXPECT_NE(child.message().find("not found"), std::string::npos);
}

// One rule for finding a program, shared with the worker's tool lookup and serve's
// --allow-command check: an executable regular file, never a folder, never the current folder
// through an empty PATH entry.
TEST(ChildProcess, AProgramOnPathIsAnExecutableFileAndAnEmptyEntryIsNotTheCurrentFolder) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(::testing::TempDir()) / ("find-exe-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "a" / "tool");  // a folder named like the program
  fs::create_directories(dir / "b");
  std::ofstream(dir / "b" / "tool") << "#!/bin/sh\n";
  fs::permissions(dir / "b" / "tool", fs::perms::owner_all);
  std::ofstream(dir / "here") << "#!/bin/sh\n";
  fs::permissions(dir / "here", fs::perms::owner_all);
  const std::string saved_path = std::getenv("PATH") ? std::getenv("PATH") : "";
  const fs::path saved_cwd = fs::current_path();
  ::setenv("PATH", ((dir / "a").string() + ":" + (dir / "b").string()).c_str(), 1);
  EXPECT_EQ(find_executable("tool"), dir / "b" / "tool");
  EXPECT_EQ(find_executable((dir / "a" / "tool").string()), std::nullopt);
  fs::current_path(dir);
  ::setenv("PATH", ":/nonexistent", 1);
  EXPECT_EQ(find_executable("here"), std::nullopt);
  EXPECT_EQ(find_executable("./here"), fs::absolute("./here"));
  fs::current_path(saved_cwd);
  ::setenv("PATH", saved_path.c_str(), 1);
  fs::remove_all(dir);
}

// A command's program written as a path is a file the scenario names: one definition of why it
// cannot start, shared by a [router]/[routers.NAME] command and a [worker_impls.NAME] command,
// which fail their run with it. A bare name is looked up on PATH and is never its concern.
TEST(ChildProcess, AProgramPathThatCannotStartIsNamedWithWhy) {
  namespace fs = std::filesystem;
  const fs::path dir =
      fs::path(::testing::TempDir()) / ("program-path-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  // Removed on every way out of the test, an ASSERT's return included.
  struct RemovedAtEnd {
    fs::path dir;
    ~RemovedAtEnd() {
      std::error_code ignored;
      fs::remove_all(dir, ignored);
    }
  } removed{dir};
  fs::create_directories(dir / "folder");
  std::ofstream(dir / "plain") << "#!/bin/sh\n";
  fs::permissions(dir / "plain", fs::perms::owner_read | fs::perms::owner_write);
  std::ofstream(dir / "tool") << "#!/bin/sh\n";
  fs::permissions(dir / "tool", fs::perms::owner_all);
  const std::string d = dir.string();
  EXPECT_EQ(program_path_problem("no-such-benchgate-program"), std::nullopt);
  EXPECT_EQ(program_path_problem(d + "/tool"), std::nullopt);
  EXPECT_EQ(program_path_problem(d + "/missing"),
            "the command's program '" + d + "/missing' does not exist");
  EXPECT_EQ(program_path_problem(d + "/plain/x"),
            "the command's program '" + d + "/plain/x' does not exist");  // ENOTDIR
  EXPECT_EQ(program_path_problem(d + "/folder"),
            "the command's program '" + d + "/folder' is a folder, not a regular file");
  ASSERT_EQ(::mkfifo((d + "/fifo").c_str(), 0700), 0);
  EXPECT_EQ(program_path_problem(d + "/fifo"),
            "the command's program '" + d + "/fifo' is not a regular file");
  // No execute bit at all: refused to root too (access(X_OK) needs one x bit for it).
  EXPECT_EQ(program_path_problem(d + "/plain"),
            "the command's program '" + d + "/plain' is not executable");
  const fs::path saved_cwd = fs::current_path();
  fs::current_path(dir);
  EXPECT_EQ(program_path_problem("./tool"), std::nullopt);
  EXPECT_EQ(program_path_problem("./missing"),
            "the command's program './missing' (a relative path, resolved against the working "
            "directory " +
                fs::current_path().string() + ") does not exist");
  fs::current_path(saved_cwd);
}

// argv's entries are C strings: an argument holding a NUL would reach the child cut short, as
// other than what was checked (serve's admission), so spawn refuses it and starts nothing.
TEST(ChildProcess, AnArgumentHoldingANulIsRefused) {
  SpawnOptions options = shell("echo READY; sleep 30");
  options.args.push_back(std::string("--adapter\0", 10));
  auto child = ChildProcess::spawn(options);
  ASSERT_FALSE(child.ok());
  EXPECT_EQ(child.message(),
            "cannot start test child: argv[3] '--adapter\\x00' holds a NUL byte (\\u0000), which "
            "no program argument can carry; it was not started");
}

TEST(ChildProcess, AProgramHoldingANulIsRefused) {
  SpawnOptions options = shell("echo READY");
  options.executable = std::string("/bin/sh\0x", 9);
  auto child = ChildProcess::spawn(options);
  ASSERT_FALSE(child.ok());
  EXPECT_EQ(child.message(),
            "cannot start test child: its program '/bin/sh\\x00x' holds a NUL byte (\\u0000), "
            "which no program argument can carry; it was not started");
}

// An environment entry is a C string too: the child would see the variable cut short
// (BENCHGATE_SUT_DIR, the folder of a command system under test, is built from the log folder).
TEST(ChildProcess, AnEnvironmentVariableHoldingANulIsRefusedByItsName) {
  SpawnOptions options = shell("echo READY; sleep 30");
  options.environment = {"BENCHGATE_OTHER=x", std::string("BENCHGATE_SUT_DIR=/tmp/a\0b", 26)};
  auto child = ChildProcess::spawn(options);
  ASSERT_FALSE(child.ok());
  EXPECT_EQ(child.message(),
            "cannot start test child: environment variable BENCHGATE_SUT_DIR '/tmp/a\\x00b' "
            "holds a NUL byte (\\u0000), which no environment variable can carry; it was not "
            "started");
}

// The orchestrator ignores SIGPIPE (app/interrupt.cc), and an ignored signal stays ignored
// across an exec: a command system under test started so (a shell pipeline in it) would get
// EPIPE where it expects to die of SIGPIPE. Each child starts with every disposition default,
// as from a shell; the router and the worker ignore SIGPIPE themselves (their main.cc).
TEST(ChildProcess, AChildStartsWithNoSignalIgnoredOrBlocked) {
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  struct sigaction old_pipe {};
  ASSERT_EQ(::sigaction(SIGPIPE, &ignore, &old_pipe), 0);
  auto child = ChildProcess::spawn(
      shell("echo \"READY $(grep -E '^Sig(Ign|Blk):' /proc/self/status | tr '\\n\\t' '  ')\""));
  ::sigaction(SIGPIPE, &old_pipe, nullptr);
  ASSERT_TRUE(child.ok()) << child.message();
  auto line = (*child)->wait_ready_line(std::chrono::steady_clock::now() + 10s);
  ASSERT_TRUE(line.ok()) << line.message();
  EXPECT_EQ(*line, "READY SigBlk: 0000000000000000 SigIgn: 0000000000000000 ");
}

}  // namespace
}  // namespace benchgate::processes
