// Pinned programs (pinned_programs.h): a path swapped for another file after it was pinned
// still starts the pinned file; a pinned script is started by its path only while that path
// names it.
#include "orchestrator/processes/pinned_programs.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <thread>

#include "orchestrator/processes/child_process.h"
#include "process_log.h"

namespace benchgate::processes {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

const test_support::ProcessLog pinned_test_log("benchgate-pinned-test-");

class PinnedProgramsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "benchgate-pinned-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string file(const std::string& name) const { return (dir_ / name).string(); }
  // `from` copied to `name`, executable.
  std::string copy_program(const std::string& from, const std::string& name) const {
    fs::copy_file(from, file(name), fs::copy_options::overwrite_existing);
    fs::permissions(file(name), fs::perms::owner_all);
    return file(name);
  }
  std::string script(const std::string& name, const std::string& text) const {
    std::ofstream(file(name)) << text;
    fs::permissions(file(name), fs::perms::owner_all);
    return file(name);
  }
  // `replacement` renamed over `path`: the path names another file, the pinned one unlinked.
  static void swap(const std::string& replacement, const std::string& path) {
    fs::rename(replacement, path);
  }

  static SpawnOptions options_for(const std::string& path) {
    SpawnOptions options;
    options.name = "pinned child";
    options.executable = path;
    options.stderr_log = pinned_test_log.path();
    options.capture_stdout = false;
    return options;
  }
  // How the child ended: "exited with status N", as exit_description words it.
  static std::string ended(ChildProcess& child) {
    for (int i = 0; i < 2000 && child.running(); ++i) std::this_thread::sleep_for(5ms);
    return child.exit_description();
  }

  fs::path dir_;
};

TEST_F(PinnedProgramsTest, APathSwappedAfterItWasPinnedStartsThePinnedFile) {
  const std::string program = copy_program("/bin/true", "program");
  PinnedPrograms pinned;
  pinned.pin(program);
  ASSERT_FALSE(pinned.names_another_file(program));
  ASSERT_TRUE(pinned.install());
  swap(copy_program("/bin/false", "other"), program);

  auto child = ChildProcess::spawn(options_for(program));
  ASSERT_TRUE(child.ok()) << child.message();
  // /bin/true's status, and the name it runs under is its own (no "(running 5) ").
  EXPECT_EQ(ended(**child), "exited with status 0");
}

TEST_F(PinnedProgramsTest, WithoutPinsThePathIsWhatStarts) {
  const std::string program = copy_program("/bin/true", "program");
  swap(copy_program("/bin/false", "other"), program);
  auto child = ChildProcess::spawn(options_for(program));
  ASSERT_TRUE(child.ok()) << child.message();
  EXPECT_EQ(ended(**child), "exited with status 1");
}

TEST_F(PinnedProgramsTest, ThePinnedProgramGetsItsArgumentsAndNoDescriptorOfItsOwn) {
  const std::string program = copy_program("/bin/sh", "sh");
  PinnedPrograms pinned;
  pinned.pin(program);
  ASSERT_TRUE(pinned.install());
  SpawnOptions options = options_for(program);
  // argv[0] is the path as spawned; the pinned descriptor is close-on-exec: only 0, 1, 2 and
  // the folder ls reads are open in the program.
  options.args = {"-c",
                  "[ \"$(tr '\\0' '\\n' < /proc/$$/cmdline | head -n 1)\" = '" + program +
                      "' ] && [ \"$0 $1\" = 'zero x' ] || exit 3; "
                      "[ \"$(ls /proc/self/fd | wc -l)\" = 4 ] || exit 4",
                  "zero", "x"};
  auto child = ChildProcess::spawn(options);
  ASSERT_TRUE(child.ok()) << child.message();
  EXPECT_EQ(ended(**child), "exited with status 0");
}

TEST_F(PinnedProgramsTest, APinnedScriptStartsByItsPathWhileThePathNamesIt) {
  const std::string program =
      script("start.sh", "#!/bin/sh\n[ \"$0\" = '" + file("start.sh") + "' ] || exit 3\nexit 0\n");
  PinnedPrograms pinned;
  pinned.pin(program);
  ASSERT_TRUE(pinned.install());
  auto child = ChildProcess::spawn(options_for(program));
  ASSERT_TRUE(child.ok()) << child.message();
  EXPECT_EQ(ended(**child), "exited with status 0");
}

TEST_F(PinnedProgramsTest, APinnedScriptSwappedAfterItWasPinnedIsNotStarted) {
  const std::string program = script("start.sh", "#!/bin/sh\nexit 0\n");
  PinnedPrograms pinned;
  pinned.pin(program);
  ASSERT_TRUE(pinned.install());
  swap(script("other.sh", "#!/bin/sh\ntouch '" + file("ran") + "'\n"), program);

  auto child = ChildProcess::spawn(options_for(program));
  ASSERT_FALSE(child.ok());
  EXPECT_EQ(child.message(), "cannot start pinned child: '" + program +
                                 "' names another file now than the one checked when its job "
                                 "started; it was not started");
  EXPECT_FALSE(fs::exists(file("ran")));
  EXPECT_TRUE(pinned.names_another_file(program));
}

TEST_F(PinnedProgramsTest, APathThatCouldNotBeOpenedIsNotStarted) {
  const std::string missing = file("missing");
  PinnedPrograms pinned;
  pinned.pin(missing);
  ASSERT_TRUE(pinned.install());
  EXPECT_FALSE(pinned.names_another_file(missing));  // refused when spawned instead
  copy_program("/bin/true", "missing");
  auto child = ChildProcess::spawn(options_for(missing));
  ASSERT_FALSE(child.ok());
  EXPECT_EQ(child.message(), "cannot start pinned child: '" + missing +
                                 "' could not be opened when its job started (no such file or "
                                 "directory)");
}

TEST_F(PinnedProgramsTest, OneSetAtATimeAndNoneOnceItIsGone) {
  const std::string program = copy_program("/bin/true", "program");
  {
    PinnedPrograms first;
    first.pin(program);
    ASSERT_TRUE(first.install());
    PinnedPrograms second;
    EXPECT_FALSE(second.install());
    EXPECT_TRUE(pinned_file(program).has_value());
  }
  EXPECT_FALSE(pinned_file(program).has_value());
}

// A pinned wrapper that execs another program at once ends as that program, and is said to:
// the name it started under is known before the fork, not read from /proc/PID/comm after the
// spawn, where the wrapper may have exec'd its program already (then no "(running sleep)").
TEST_F(PinnedProgramsTest, APinnedWrapperThatExecsAnotherProgramIsSaidToEndAsThatProgram) {
  const std::string wrapper = copy_program("/usr/bin/env", "wrapper");
  PinnedPrograms pinned;
  pinned.pin(wrapper);
  ASSERT_TRUE(pinned.install());
  SpawnOptions options = options_for(wrapper);
  options.args = {"sleep", "30"};
  auto child = ChildProcess::spawn(options);
  ASSERT_TRUE(child.ok()) << child.message();
  const std::string comm = "/proc/" + std::to_string((*child)->pid()) + "/comm";
  std::string name;
  for (int i = 0; i < 2000 && name != "sleep"; ++i) {
    std::this_thread::sleep_for(5ms);
    std::ifstream in(comm);
    std::getline(in, name);
  }
  ASSERT_EQ(name, "sleep");
  (*child)->stop();
  EXPECT_EQ((*child)->exit_description(), "(running sleep) killed by signal 15 (Terminated)");
}

// What spawn took of a set (pinned_file) stays the pinned file while spawn uses it, though the
// job's teardown destroys the set meanwhile: the descriptor was closed with the set, and the
// next open took its number, so the child would have started that other file.
TEST_F(PinnedProgramsTest, APinnedFileTakenForASpawnOutlivesItsSet) {
  const std::string program = copy_program("/bin/true", "program");
  struct stat program_info {};
  ASSERT_EQ(::stat(program.c_str(), &program_info), 0);
  std::optional<PinnedFile> taken;
  {
    PinnedPrograms pinned;
    pinned.pin(program);
    ASSERT_TRUE(pinned.install());
    taken = pinned_file(program);
    ASSERT_TRUE(taken.has_value());
    ASSERT_GE(taken->fd, 0);
  }
  const std::string other = copy_program("/bin/false", "other");
  const int other_fd = ::open(other.c_str(), O_PATH | O_CLOEXEC);
  ASSERT_GE(other_fd, 0);
  struct stat taken_info {};
  const int taken_stat = ::fstat(taken->fd, &taken_info);
  ::close(other_fd);
  ASSERT_EQ(taken_stat, 0);
  EXPECT_EQ(taken_info.st_dev, program_info.st_dev);
  EXPECT_EQ(taken_info.st_ino, program_info.st_ino);
}

}  // namespace
}  // namespace benchgate::processes
