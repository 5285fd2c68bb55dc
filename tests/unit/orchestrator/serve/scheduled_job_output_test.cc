// What a job of the service's own scenarios (serve --every) shows names none of the service's
// folders, also when --scenarios was given as a relative path: neither the folder as given
// nor its absolute spelling (${scenario_dir}), nor the jobs' log folder (README "Clients of
// orchestrator serve", orchestrator/serve/client_paths.h). The run fails at once through the
// engine's fakes, with a message that names all three.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "executor_test_support.h"
#include "orchestrator/cli/exit_codes.h"
#include "orchestrator/serve/admission.h"
#include "orchestrator/serve/client_paths.h"

namespace benchgate::serve {
namespace {

namespace fs = std::filesystem;

TEST(ScheduledJobOutput, ARelativeScenariosFolderAndTheLogFolderAreTakenOutOfWhatItShows) {
  store::testing::TempDir base;
  const fs::path folder = fs::path(base.path()) / "scen";
  fs::create_directories(folder);
  std::ofstream(folder / "a.toml") << "name = \"scheduled\"\n"
                                      "[[workloads]]\n"
                                      "name = \"w\"\n"
                                      "protocol = \"http1\"\n"
                                      "target = \"/\"\n";
  // --scenarios as an operator may give it: relative to the service's working folder.
  const std::string relative = fs::relative(folder, fs::current_path()).string();
  ASSERT_FALSE(relative.empty());
  ASSERT_NE(relative.front(), '/');
  const std::string absolute = folder.string();

  std::string problems;
  std::vector<scenario::Scenario> scenarios = scenarios_in(relative, problems);
  ASSERT_EQ(scenarios.size(), 1u) << problems;

  testing::ExecutorBench bench(folder_spellings(relative));
  const std::string log = bench.log_dir() + "/job-1/router.stderr.log";
  engine::testing::FakeSut::Script fails;
  fails.start_error =
      Error{"cannot start: see " + relative + "/a.toml, " + absolute + "/b.toml and " + log,
            ErrorKind::kFailed, "read " + absolute + "/c.pem\n"};
  bench.factories().suts = {fails};
  auto job = bench.submit(std::move(scenarios.front()), "scheduled");
  ASSERT_TRUE(job);
  const auto ended = testing::ExecutorBench::wait_end(*job);

  EXPECT_EQ(ended.status.exit_code, cli::kExitRunError);
  const std::string shown = "cannot start: see a.toml, b.toml and job-1/router.stderr.log";
  EXPECT_NE(ended.status.error.find(shown), std::string::npos) << ended.status.error;
  EXPECT_NE(ended.err.find(shown), std::string::npos) << ended.err;
  EXPECT_NE(ended.err.find("read c.pem"), std::string::npos) << ended.err;
  for (const std::string& folder_text : {relative, absolute, bench.log_dir()}) {
    EXPECT_EQ(ended.status.error.find(folder_text), std::string::npos) << ended.status.error;
    EXPECT_EQ(ended.err.find(folder_text), std::string::npos) << ended.err;
  }
}

}  // namespace
}  // namespace benchgate::serve
