// A submitted job's programs are checked again as it starts and pinned there: a path that
// names another file after that check still starts the file checked, however late in the run
// it is spawned (orchestrator/serve/run_executor.h, pin_checked_programs;
// orchestrator/processes/pinned_programs.h).
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <string>
#include <thread>

#include "executor_test_support.h"
#include "orchestrator/cli/exit_codes.h"
#include "orchestrator/processes/child_process.h"
#include "orchestrator/serve/run_executor.h"

namespace benchgate::serve {
namespace {

namespace fs = std::filesystem;

class ProgramRecheck : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "benchgate-recheck-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string copy_program(const std::string& from, const std::string& name) const {
    const std::string path = (dir_ / name).string();
    fs::copy_file(from, path, fs::copy_options::overwrite_existing);
    fs::permissions(path, fs::perms::owner_all);
    return path;
  }
  // What the router's command starts, as the run starts its router: how it ended.
  static std::string start_and_wait(const std::string& program, const std::string& log) {
    processes::SpawnOptions options;
    options.name = "router";
    options.executable = program;
    options.stderr_log = log;
    options.capture_stdout = false;
    auto child = processes::ChildProcess::spawn(options);
    if (!child) return child.message();
    for (int i = 0; i < 2000 && (*child)->running(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return (*child)->exit_description();
  }

  fs::path dir_;
};

TEST_F(ProgramRecheck, AProgramSwappedAfterTheJobCheckedItStillStartsTheFileChecked) {
  testing::ExecutorBench bench;
  const std::string program = copy_program("/bin/true", "router");
  scenario::Scenario s = testing::short_scenario();
  s.router.impl = scenario::RouterImpl::kCommand;
  s.router.command = {program};
  JobOptions options;
  options.allowed_commands = std::vector<std::string>{program};

  RunExecutor::Seams seams;
  seams.programs_checked = [&] { fs::rename(copy_program("/bin/false", "other"), program); };
  bench.executor().set_seams(seams);
  std::string ran;
  engine::testing::FakeSut::Script router;
  router.on_start = [&] { ran = start_and_wait(program, (dir_ / "router.log").string()); };
  bench.factories().suts = {router};

  auto job = bench.submit(s, "client", options);
  ASSERT_TRUE(job);
  const auto ended = testing::ExecutorBench::wait_end(*job);
  EXPECT_EQ(ended.status.exit_code, cli::kExitOk) << ended.status.error << ended.err;
  // /bin/true, checked as the job started; /bin/false took its path after.
  EXPECT_EQ(ran, "exited with status 0");
}

TEST_F(ProgramRecheck, AnOperatorsScenarioStartsWhatItsPathNames) {
  testing::ExecutorBench bench;
  const std::string program = copy_program("/bin/true", "router");
  scenario::Scenario s = testing::short_scenario();
  s.router.impl = scenario::RouterImpl::kCommand;
  s.router.command = {program};

  RunExecutor::Seams seams;
  seams.programs_checked = [&] { fs::rename(copy_program("/bin/false", "other"), program); };
  bench.executor().set_seams(seams);
  std::string ran;
  engine::testing::FakeSut::Script router;
  router.on_start = [&] { ran = start_and_wait(program, (dir_ / "router.log").string()); };
  bench.factories().suts = {router};

  auto job = bench.submit(s, "scheduled");  // no --allow-command: trusted, nothing pinned
  ASSERT_TRUE(job);
  testing::ExecutorBench::wait_end(*job);
  EXPECT_EQ(ran, "exited with status 1");
}

}  // namespace
}  // namespace benchgate::serve
