// What a client of `orchestrator serve` is shown names the files it knows, never the service's
// folders (orchestrator/serve/client_paths.h): a scenario run by name is named by its file
// name, in its diagnostics and in its run's output, and the job's output and error hold the
// jobs' log folder and the scenarios folder as names relative to them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "orchestrator/serve/admission.h"
#include "orchestrator/serve/client_paths.h"
#include "orchestrator/serve/job_output.h"

namespace benchgate::serve {
namespace {

// The output events of `job`, stdout and stderr alike, in order.
std::string output_of(const Job& job) {
  bool ended = false;
  uint64_t from = 0;
  std::string text;
  for (const JobEvent& event : job.events_since(from, std::chrono::milliseconds(0), ended)) {
    if (const auto* o = std::get_if<JobOutput>(&event)) text += o->text;
  }
  return text;
}

TEST(ClientPaths, TheJobsOutputNamesItsLogsRelativeToTheServicesFolders) {
  Job job(7, scenario::Scenario{}, {}, "client");
  {
    UniqueFile err = open_job_output(job, true, {"/srv/bench/logs", "/srv/bench/scenarios/"});
    std::fprintf(err.get(), "router exited; see /srv/bench/logs/job-7/router.stderr.log\n");
    // A line written in two parts, flushed between them, with the folder split over both.
    std::fputs("cannot read /srv/bench/sce", err.get());
    std::fflush(err.get());
    std::fputs("narios/auth.json\nlast line without its end", err.get());
  }
  EXPECT_EQ(output_of(job),
            "router exited; see job-7/router.stderr.log\ncannot read auth.json\nlast line "
            "without its end");
}

TEST(ClientPaths, AFolderIsTakenOutOnlyWhereItIsAFolder) {
  EXPECT_EQ(without_folders("/srv/logs/a /srv/logsx/b /srv/logs", {"/srv/logs"}),
            "a /srv/logsx/b .");
  // --scenarios / (or a log folder that fell back to it) leaves the paths as they are.
  EXPECT_EQ(without_folders("see /srv/logs/a", {"/", "", "."}), "see /srv/logs/a");
}

TEST(ClientPaths, AFolderIsTakenOutOnlyWhereAPathBegins) {
  const std::vector<std::string> logs{"/srv/logs"};
  // Inside another path it is that path's: neither taken out nor mangled.
  EXPECT_EQ(without_folders("see /x/srv/logs/a", logs), "see /x/srv/logs/a");
  EXPECT_EQ(without_folders("see /home/op/scen/bin/x", {"scen"}), "see /home/op/scen/bin/x");
  EXPECT_EQ(without_folders("a-/srv/logs/b", logs), "a-/srv/logs/b");
  // After a space, a quote, '(' or '=', or at the text's start, it is.
  EXPECT_EQ(without_folders(
                "/srv/logs/a '/srv/logs/b' \"/srv/logs/c\" (/srv/logs/d) --x=/srv/logs/e", logs),
            "a 'b' \"c\" (d) --x=e");
  EXPECT_EQ(without_folders("scenario own (scen/own.toml)", {"scen"}), "scenario own (own.toml)");
  // Named alone, an absolute folder is "."; a relative one is a word like any other.
  EXPECT_EQ(without_folders("cannot open /srv/logs: gone", logs), "cannot open .: gone");
  EXPECT_EQ(without_folders("the scen folder", {"scen"}), "the scen folder");
  // Nested folders: the longest that fits.
  EXPECT_EQ(without_folders("/srv/logs/job-1/a /srv/b", {"/srv", "/srv/logs"}), "job-1/a b");
}

TEST(ClientPaths, AFolderIsKnownByEveryWayItsPathsAreSpelt) {
  const auto absolute = std::filesystem::absolute("scen").lexically_normal().string();
  const std::vector<std::string> spellings = folder_spellings("./scen/");
  for (const std::string& spelling : {std::string("./scen"), std::string("scen"), absolute}) {
    EXPECT_NE(std::find(spellings.begin(), spellings.end(), spelling), spellings.end()) << spelling;
  }
  EXPECT_TRUE(folder_spellings("").empty());
}

// A router's stderr tail as a job shows it: the binary's folder, the store's folder and the
// temporary folder are the service's layout too, and go as the scenarios folder does.
TEST(ClientPaths, AChildsStderrNamesNoneOfTheServicesFolders) {
  const std::string temp = std::filesystem::temp_directory_path().lexically_normal().string();
  const std::string here = std::filesystem::current_path().string();
  const std::vector<std::string> folders =
      service_folders("/srv/scen", "bench.db", {"/opt/bench/bin/router", "worker"});
  const std::string tail = "/opt/bench/bin/router: cannot read /opt/bench/bin/router.conf\n" +
                           here + "/bench.db is locked; scratch in " + temp +
                           "/bench-1/x; see /srv/scen/a.toml; /usr/lib/x stays\n";
  EXPECT_EQ(without_folders(tail, folders),
            "router: cannot read router.conf\nbench.db is locked; scratch in bench-1/x; see "
            "a.toml; /usr/lib/x stays\n");
  // A bare program name is found through PATH: no folder of the service's to take out.
  EXPECT_EQ(folder_of("worker", false), "");
  EXPECT_EQ(folder_of("bench.db", true), here);
  EXPECT_EQ(folder_of("data/bench.db", true), "data");
}

class ScenarioFolder : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("benchgate-client-paths-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  void write(const std::string& file, const std::string& text) {
    std::ofstream(dir_ / file) << text;
  }
  AdmissionPolicy policy() const { return AdmissionPolicy{dir_.string(), {}, {}}; }

  std::filesystem::path dir_;
};

TEST_F(ScenarioFolder, AScenarioRunByNameIsNamedByItsFileName) {
  write("own.toml",
        "name = \"own\"\n[[workloads]]\nname = \"w\"\nprotocol = \"http1\"\ntarget = \"/\"\n"
        "[[gates]]\nworkload = \"w\"\nmetric = \"errors.count\"\nmax = 0\n");
  const Admission a = admit_by_name("own", policy());
  ASSERT_TRUE(a.scenario) << a.message;
  EXPECT_EQ(a.scenario->path, "own.toml");
  EXPECT_EQ(a.scenario->workloads.at(0).where.file, "own.toml");
  EXPECT_EQ(a.scenario->gates.at(0).where.file, "own.toml");
  EXPECT_EQ(a.scenario->router.where.file.find(dir_.string()), std::string::npos);
}

TEST_F(ScenarioFolder, TheErrorsOfAScenarioRunByNameNameItsFileNotTheFolder) {
  write("bad.toml", "name = \"bad\"\n[[workloads]]\nname = \"w\"\nprotocol = \"gopher\"\n");
  const Admission a = admit_by_name("bad", policy());
  ASSERT_FALSE(a.scenario);
  EXPECT_EQ(a.refusal, Refusal::kInvalid);
  EXPECT_EQ(a.message.rfind("bad.toml:4:", 0), 0u) << a.message;
  EXPECT_EQ(a.message.find(dir_.string()), std::string::npos) << a.message;
}

TEST_F(ScenarioFolder, AFolderGivenRelativeIsTakenOutOfErrorsInEverySpelling) {
  // ${scenario_dir} is the folder made absolute; a file beside the scenario is named through
  // the folder as given. Neither reaches the client, whole or in part.
  write("tls.toml",
        "name = \"tls\"\n[router]\ntls = true\n"
        "tls_cert = \"${scenario_dir}/missing.pem\"\ntls_key = \"key.pem\"\n"
        "[[workloads]]\nname = \"w\"\nprotocol = \"http1\"\ntarget = \"/\"\n");
  const std::string relative =
      std::filesystem::relative(dir_, std::filesystem::current_path()).string();
  ASSERT_NE(relative.front(), '/');
  const Admission a = admit_by_name("tls", AdmissionPolicy{relative, {}, {}});
  ASSERT_FALSE(a.scenario);
  EXPECT_NE(a.message.find("no such file 'missing.pem'"), std::string::npos) << a.message;
  EXPECT_NE(a.message.find("no such file 'key.pem' (read as 'key.pem')"), std::string::npos)
      << a.message;
  EXPECT_EQ(a.message.find(dir_.filename().string()), std::string::npos) << a.message;
}

TEST_F(ScenarioFolder, AScheduledScenarioIsNamedByItsFileName) {
  write("own.toml",
        "name = \"own\"\n[[workloads]]\nname = \"w\"\nprotocol = \"http1\"\n"
        "target = \"/\"\n");
  std::string problems;
  const auto found = scenarios_in(dir_.string(), problems);
  ASSERT_EQ(found.size(), 1u) << problems;
  EXPECT_EQ(found[0].path, "own.toml");
  EXPECT_EQ(found[0].workloads.at(0).where.file, "own.toml");
  EXPECT_EQ(found[0].router.where.file.find(dir_.string()), std::string::npos);
}

}  // namespace
}  // namespace benchgate::serve
