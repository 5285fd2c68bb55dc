// What `orchestrator serve` admits from a client (orchestrator/serve/admission): every program a
// submitted scenario can start goes through --allow-command, every address it reaches through
// --allow-address (or is a loopback port it allocated), and nothing reads the service's
// environment or folders. One test per path a program or an address can take.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>

#include "common/util/shown_text.h"
#include "orchestrator/serve/admission.h"

namespace benchgate::serve {
namespace {

const std::string kWorkload = R"(
[[workloads]]
name = "w"
protocol = "http1"
target = "/"
repetitions = 2
)";

AdmissionPolicy allowing(std::vector<std::string> commands,
                         std::vector<std::string> addresses = {}) {
  return AdmissionPolicy{"", std::move(commands), std::move(addresses)};
}

Admission admit(const std::string& text, const AdmissionPolicy& policy) {
  return admit_content("client.toml", "name = \"s\"\n" + text + kWorkload, policy);
}

// The scenario is refused as not allowed, with a file:line:column error saying `needle`.
void expect_denied(const Admission& a, const std::string& needle) {
  EXPECT_FALSE(a.scenario);
  EXPECT_EQ(a.refusal, Refusal::kDenied) << a.message;
  EXPECT_NE(a.message.find(needle), std::string::npos) << a.message;
  EXPECT_EQ(a.message.rfind("client.toml:", 0), 0u) << a.message;
  EXPECT_NE(a.message.find("nothing was started"), std::string::npos) << a.message;
}

void expect_admitted(const Admission& a) {
  EXPECT_TRUE(a.scenario) << a.message;
  EXPECT_EQ(a.refusal, Refusal::kNone) << a.message;
}

const std::string kRouterCommand = R"(
[router]
impl = "command"
command = ["/bin/sleep", "60"]
address = "127.0.0.1:${port:sut}"
)";

// A client cannot make the service connect wherever it says: [workers] at may only repeat the
// service's own --workers-at entries.
TEST(Admission, WorkersAtMustBeOneOfTheServicesWorkers) {
  const std::string remote = "[workers]\nat = [\"10.0.0.9:7800\", \"dns:w:7800\"]\n";
  const Admission a = admit(remote, allowing({}));
  expect_denied(a, "[workers] at '10.0.0.9:7800' is not one of this service's workers");
  EXPECT_NE(a.message.find("[workers] at 'dns:w:7800' is not one"), std::string::npos) << a.message;
  EXPECT_EQ(a.message.rfind("client.toml:3:6: error:", 0), 0u) << a.message;
  AdmissionPolicy policy = allowing({});
  policy.worker_addresses = {"dns:w:7800"};
  expect_denied(admit(remote, policy), "'10.0.0.9:7800' is not one");
  policy.worker_addresses = {"dns:w:7800", "10.0.0.9:7800"};
  expect_admitted(admit(remote, policy));
  // Without `at` the other keys reach nothing.
  expect_admitted(admit("[workers]\non_worker_loss = \"continue\"\n", allowing({})));
}

// Each error points at the value of the key it is about (line 5 is `command = ...`).
TEST(Admission, ARouterCommandMustBeAllowed) {
  expect_denied(admit(kRouterCommand, allowing({"/bin/true"})),
                "client.toml:5:11: error: [router] command '/bin/sleep' is not allowed");
  expect_admitted(admit(kRouterCommand, allowing({"/bin/sleep"})));
}

const std::string kComparedRouters = R"(
[routers.mine]
impl = "builtin"
[routers.theirs]
impl = "command"
command = ["/bin/sh", "-c", "touch MARKER"]
address = "127.0.0.1:${port:theirs}"
[compare]
routers = ["mine", "theirs"]
)";

TEST(Admission, AComparedRouterCommandMustBeAllowed) {
  expect_denied(admit(kComparedRouters, allowing({"/bin/sleep"})),
                "client.toml:7:11: error: [routers.theirs] command '/bin/sh' is not allowed");
  expect_admitted(admit(kComparedRouters, allowing({"/bin/sh"})));
}

const std::string kWorkerCommand = R"(
[worker_impls.evil]
command = ["/bin/sh", "-c", "touch MARKER"]
[compare]
workers = ["builtin", "evil"]
)";

TEST(Admission, AWorkerImplementationCommandMustBeAllowed) {
  expect_denied(admit(kWorkerCommand, allowing({})),
                "client.toml:4:11: error: [worker_impls.evil] command '/bin/sh' is not allowed");
  expect_admitted(admit(kWorkerCommand, allowing({"/bin/sh"})));
}

TEST(Admission, ASubmittedCommandMayNotChooseTheProgramAnAdapterRuns) {
  // Allowing the worker must not let a client run any file as its "wrk" (review of 222b9ec2):
  // the tool is the one the service resolved as it started, never named by a command.
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"\"--adapter-program\", \"/usr/bin/curl\"", "--adapter-program"},
      {"\"--adapter-program=/usr/bin/curl\"", "--adapter-program"},
      {"\"--adapter\", \"wrk\"", "--adapter"},
      {"\"--adapter=h2load\"", "--adapter"}};
  for (const auto& [option, name] : cases) {
    const std::string worker = "[worker_impls.w]\ncommand = [\"/bin/sh\", \"-x\", " + option +
                               "]\n[compare]\nworkers = [\"builtin\", \"w\"]\n";
    expect_denied(admit(worker, allowing({"/bin/sh"})),
                  "[worker_impls.w] command carries '" + name + "': a submitted scenario");
    std::string router = kComparedRouters;
    router.replace(router.find("\"-c\""), 4, option);
    expect_denied(admit(router, allowing({"/bin/sh"})),
                  "client.toml:7:11: error: [routers.theirs] command carries '" + name + "'");
  }
  // TOML's \u0000 puts a NUL in the argument, which argv would cut to "--adapter" in the child:
  // the loader refuses it before the whole-argument check above could pass it.
  const std::string nul_option = "\"--adapter\\u0000\", \"wrk\"";
  const std::string worker = "[worker_impls.w]\ncommand = [\"/bin/sh\", \"-x\", " + nul_option +
                             "]\n[compare]\nworkers = [\"builtin\", \"w\"]\n";
  const Admission nul_worker = admit(worker, allowing({"/bin/sh"}));
  EXPECT_FALSE(nul_worker.scenario);
  EXPECT_EQ(nul_worker.refusal, Refusal::kInvalid) << nul_worker.message;
  EXPECT_EQ(nul_worker.message.rfind("client.toml:3:29: error: key 'command[2]' in "
                                     "[worker_impls.w] holds a NUL byte (\\u0000)",
                                     0),
            0u)
      << nul_worker.message;
  std::string router = kComparedRouters;
  router.replace(router.find("\"-c\""), 4, nul_option);
  const Admission nul_router = admit(router, allowing({"/bin/sh"}));
  EXPECT_FALSE(nul_router.scenario);
  EXPECT_EQ(nul_router.refusal, Refusal::kInvalid) << nul_router.message;
  EXPECT_EQ(nul_router.message.rfind("client.toml:7:23: error: key 'command[1]' in "
                                     "[routers.theirs] holds a NUL byte (\\u0000)",
                                     0),
            0u)
      << nul_router.message;
  // An option that only begins the same is another option.
  expect_admitted(
      admit("[worker_impls.w]\ncommand = [\"/bin/sh\", \"--adapters\"]\n"
            "[compare]\nworkers = [\"builtin\", \"w\"]\n",
            allowing({"/bin/sh"})));
}

TEST(Admission, AWorkerImplementationNoWorkloadUsesIsCheckedToo) {
  expect_denied(admit("[worker_impls.idle]\ncommand = [\"/bin/sh\"]\n", allowing({})),
                "[worker_impls.idle] command '/bin/sh' is not allowed");
}

TEST(Admission, TheToolOfAnAdapterMustBeAllowed) {
  // The tool is the file the service resolved as it started (resolve_adapter_programs).
  const std::string adapter =
      "[worker_impls.h2]\nadapter = \"h2load\"\n"
      "[compare]\nworkers = [\"builtin\", \"h2\"]\n";
  AdmissionPolicy policy = allowing({"/bin/sh"});
  policy.adapter_programs = {{"h2load", {"/usr/bin/h2load", false}}};
  expect_denied(admit(adapter, policy), "[worker_impls.h2] adapter 'h2load' is not allowed");
  policy.adapter_programs = {{"h2load", {"/usr/bin/h2load", true}}};
  expect_admitted(admit(adapter, policy));
  // One the service did not find as it started is allowed by nothing.
  policy.adapter_programs.clear();
  expect_denied(admit(adapter, policy), "[worker_impls.h2] adapter 'h2load' is not allowed");
}

TEST(Admission, AProgramARouterRequiresMustBeAllowed) {
  // Whether the variant is not_configured would tell whether the file exists.
  const std::string text = kComparedRouters.substr(0, kComparedRouters.find("[compare]")) +
                           "requires = [\"/bin/sh\", \"/etc/secret-tool\"]\n" +
                           kComparedRouters.substr(kComparedRouters.find("[compare]"));
  const Admission a = admit(text, allowing({"/bin/sh"}));
  expect_denied(a, "[routers.theirs] requires '/etc/secret-tool' is not allowed");
  EXPECT_EQ(a.message.find("'/bin/sh'"), std::string::npos) << a.message;
  expect_admitted(admit(text, allowing({"/bin/sh", "/etc/secret-tool"})));
}

TEST(Admission, AProgramABuiltinVariantRequiresMustBeAllowedToo) {
  // The loader takes `requires` on any impl; the check must not stop at a builtin variant.
  const std::string text =
      "[routers.a]\nimpl = \"builtin\"\n[routers.b]\nimpl = \"builtin\"\n"
      "requires = [\"/etc/secret-tool\"]\n[compare]\nrouters = [\"a\", \"b\"]\n";
  expect_denied(admit(text, allowing({})),
                "client.toml:6:12: error: [routers.b] requires '/etc/secret-tool' is not allowed");
  expect_admitted(admit(text, allowing({"/etc/secret-tool"})));
}

TEST(Admission, TwoNamesOfOneMultiCallBinaryAreTwoPrograms) {
  // busybox does what the name it is started by says: allowing its `wget` must not allow its
  // `sh`, though both link to one file. A linked folder still resolves.
  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) /
                                    ("admission-multicall-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir / "bin");
  std::filesystem::create_symlink("/bin/sh", dir / "bin" / "wget");
  std::filesystem::create_symlink("/bin/sh", dir / "bin" / "sh");
  std::filesystem::create_directory_symlink(dir / "bin", dir / "linked");
  const std::string wget = (dir / "bin" / "wget").string();
  EXPECT_FALSE(command_allowed((dir / "bin" / "sh").string(), {wget}));
  EXPECT_FALSE(command_allowed("/bin/sh", {wget}));
  EXPECT_TRUE(command_allowed(wget, {wget}));
  EXPECT_TRUE(command_allowed((dir / "linked" / "wget").string(), {wget}));
  EXPECT_TRUE(command_allowed((dir / "linked" / ".." / "bin" / "wget").string(), {wget}));
  std::filesystem::remove_all(dir);
}

// A folder of its own under the test's temporary folder, with an executable `tool` in each of
// `allowed` and `own` and `link` pointing to `allowed`; removed at the end.
class PinnedPrograms : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::path(::testing::TempDir()) /
           ("admission-pinned-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
    for (const char* folder : {"allowed", "own"}) {
      std::filesystem::create_directories(dir_ / folder);
      std::ofstream(dir_ / folder / "tool") << "#!/bin/sh\nexit 0\n";
      std::filesystem::permissions(dir_ / folder / "tool", std::filesystem::perms::owner_all);
    }
    std::filesystem::create_directory_symlink(dir_ / "allowed", dir_ / "link");
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string path(const std::string& relative) const { return (dir_ / relative).string(); }
  // Points `link` (or another name) at `target` instead.
  void repoint(const std::string& name, const std::string& target) const {
    std::filesystem::remove(dir_ / name);
    std::filesystem::create_directory_symlink(dir_ / target, dir_ / name);
  }

  std::filesystem::path dir_;
};

TEST_F(PinnedPrograms, EveryProgramASubmittedScenarioSpawnsIsTheFileChecked) {
  // The job waits in the queue while the client may repoint its link to a folder of its own
  // `tool`: the admitted scenario names the file that was checked, not the link.
  const std::string linked = path("link/tool");
  const std::string text = "[routers.mine]\nimpl = \"command\"\ncommand = [\"" + linked +
                           "\", \"60\"]\naddress = \"127.0.0.1:${port:mine}\"\n"
                           "[routers.theirs]\nimpl = \"builtin\"\n"
                           "[compare]\nrouters = [\"mine\", \"theirs\"]\n"
                           "[worker_impls.x]\ncommand = [\"" +
                           linked + "\", \"--flag\"]\n";
  const Admission a = admit(text, allowing({path("allowed/tool")}));
  expect_admitted(a);
  ASSERT_TRUE(a.scenario);
  EXPECT_EQ(a.scenario->routers.at("mine").command,
            (std::vector<std::string>{path("allowed/tool"), "60"}));
  EXPECT_EQ(a.scenario->worker_impls.at("x").command,
            (std::vector<std::string>{path("allowed/tool"), "--flag"}));
  const Admission router = admit("[router]\nimpl = \"command\"\ncommand = [\"" + linked +
                                     "\"]\naddress = \"127.0.0.1:${port:sut}\"\n",
                                 allowing({path("allowed/tool")}));
  ASSERT_TRUE(router.scenario) << router.message;
  EXPECT_EQ(router.scenario->router.command.front(), path("allowed/tool"));
  // Repointed: the admitted file is still the one allowed, and the job starts.
  repoint("link", "own");
  EXPECT_EQ(program_changed_since_admitted(*a.scenario, {path("allowed/tool")}), std::nullopt);
}

TEST_F(PinnedPrograms, ABareNameIsPinnedToTheFileFoundOnPath) {
  // PATH is looked up once, at submission: the job does not look again.
  const Admission a = admit("[worker_impls.x]\ncommand = [\"sh\"]\n", allowing({"/bin/sh"}));
  ASSERT_TRUE(a.scenario) << a.message;
  const std::string pinned = a.scenario->worker_impls.at("x").command.front();
  EXPECT_EQ(pinned.front(), '/') << pinned;
  EXPECT_EQ(std::filesystem::path(pinned).filename(), "sh");
  EXPECT_TRUE(command_allowed(pinned, {"/bin/sh"}));
}

TEST_F(PinnedPrograms, AnAdaptersToolIsResolvedOnceAsTheServiceStarts) {
  for (const char* folder : {"allowed", "own"}) {
    std::filesystem::copy_file(path(std::string(folder) + "/tool"),
                               path(std::string(folder) + "/wrk"));
  }
  // PATH is put back however the test ends (an ASSERT returns early), for the tests after it.
  struct RestorePath {
    std::string saved = std::getenv("PATH") ? std::getenv("PATH") : "";
    ~RestorePath() { ::setenv("PATH", saved.c_str(), 1); }
  } restore_path;
  ::setenv("PATH", path("allowed").c_str(), 1);
  using Programs = std::map<std::string, AdapterProgram>;
  // Allowed by name: the file PATH finds as the service starts. Not allowed: the same, for the
  // service's own scenarios. Allowed by its path: that file, on PATH or not (through the link:
  // its folder resolved). Neither: absent.
  auto by_name = resolve_adapter_programs({"wrk"});
  ASSERT_TRUE(by_name.ok()) << by_name.message();
  EXPECT_EQ(*by_name, (Programs{{"wrk", {path("allowed/wrk"), true}}}));
  const auto not_allowed = resolve_adapter_programs({"/bin/sh"});
  ASSERT_TRUE(not_allowed.ok()) << not_allowed.message();
  EXPECT_EQ(*not_allowed, (Programs{{"wrk", {path("allowed/wrk"), false}}}));
  const auto by_path = resolve_adapter_programs({path("link/wrk")});
  ASSERT_TRUE(by_path.ok()) << by_path.message();
  EXPECT_EQ(*by_path, (Programs{{"wrk", {path("allowed/wrk"), true}}}));
  // A wrk put earlier on PATH once the service started is neither the tool nor allowed: the
  // submission is admitted by the tool resolved then, which the job runs.
  ::setenv("PATH", (path("own") + ":" + path("allowed")).c_str(), 1);
  AdmissionPolicy policy = allowing({"wrk"});
  policy.adapter_programs = *by_name;
  expect_admitted(admit("[worker_impls.w]\nadapter = \"wrk\"\n", policy));
  // Two files of one name: which one an adapter runs is the operator's to say.
  auto two = resolve_adapter_programs({path("allowed/wrk"), "wrk", path("link/wrk")});
  ASSERT_FALSE(two.ok());
  EXPECT_EQ(two.message(), "--allow-command '" + path("allowed/wrk") + "' and 'wrk' are two wrk " +
                               "programs ('" + path("allowed/wrk") + "', '" + path("own/wrk") +
                               "'): an adapter runs one; allow only the one it should run");
  ::setenv("PATH", "/nonexistent", 1);
  const auto none = resolve_adapter_programs({});
  ASSERT_TRUE(none.ok()) << none.message();
  EXPECT_EQ(*none, Programs{});
}

TEST_F(PinnedPrograms, AJobStartsOnlyWhileItsProgramIsStillTheFileAllowed) {
  const Admission a = admit("[worker_impls.x]\ncommand = [\"" + path("link/tool") + "\"]\n",
                            allowing({path("allowed/tool")}));
  ASSERT_TRUE(a.scenario) << a.message;
  EXPECT_EQ(program_changed_since_admitted(*a.scenario, {path("allowed/tool")}), std::nullopt);
  // The operator no longer allows it.
  EXPECT_EQ(program_changed_since_admitted(*a.scenario, {"/bin/sh"}),
            "[worker_impls.x] command '" + path("allowed/tool") +
                "' was allowed by --allow-command when the scenario was submitted and is not "
                "allowed now; nothing was started: submit the scenario again");
  // The pinned path's folder is a link by now (to the other folder): it names another file.
  std::filesystem::rename(dir_ / "allowed", dir_ / "allowed-before");
  std::filesystem::create_directory_symlink(dir_ / "own", dir_ / "allowed");
  EXPECT_EQ(program_changed_since_admitted(*a.scenario, {path("allowed/tool")}),
            "[worker_impls.x] command '" + path("allowed/tool") +
                "' was allowed by --allow-command when the scenario was submitted and names "
                "another file now ('" +
                path("own/tool") + "'); nothing was started: submit the scenario again");
}

TEST(Admission, ASubmittedFileNameIsBoundedAndHasNoControlCharacter) {
  const std::string text = "name = \"s\"\n" + kWorkload;
  const Admission long_name = admit_content(std::string(4097, 'a'), text, allowing({}));
  EXPECT_FALSE(long_name.scenario);
  EXPECT_EQ(long_name.refusal, Refusal::kInvalid);
  EXPECT_EQ(long_name.message,
            "submitted.toml: error: the file name sent with it is 4097 bytes long; at most 4096 "
            "are accepted\n");
  expect_admitted(admit_content(std::string(4096, 'a'), text, allowing({})));
  // The rule of a commit and a label: C1 controls, bidi controls and bytes that are not UTF-8
  // too (they were accepted).
  for (const std::string name : {"a\nb.toml", "a\tb.toml", "\x1b[2Jb.toml", "a\x7f.toml",
                                 "a\xc2\x9b"
                                 "2Jb.toml",
                                 "evil\xe2\x80\xaeltxt.toml", "bad\xff.toml"}) {
    const Admission a = admit_content(name, text, allowing({}));
    EXPECT_FALSE(a.scenario) << name;
    EXPECT_EQ(a.refusal, Refusal::kInvalid) << name;
    EXPECT_EQ(a.message, "submitted.toml: error: the file name sent with it ('" + shown_text(name) +
                             "') has a control character (a line break, a tab, an escape, a C1 "
                             "control, a bidi control) or invalid UTF-8; none is accepted, as in "
                             "a commit or a label\n");
  }
  expect_admitted(admit_content("caf\xc3\xa9 test.toml", text, allowing({})));
}

// A submitted scenario with `workloads` workloads (w0, w1, ...; the last one swept over
// `swept` values when swept > 1) and `gates` gates whose glob names every workload.
std::string with_counts(size_t workloads, size_t swept, size_t gates) {
  std::string text = "name = \"many\"\n";
  for (size_t i = 0; i < workloads; ++i) {
    text += "[[workloads]]\nname = \"w" + std::to_string(i) +
            "\"\nprotocol = \"http1\"\ntarget = \"/\"\n";
    if (i + 1 == workloads && swept > 1) {
      text += "sweep = { connections = [";
      for (size_t v = 1; v <= swept; ++v) text += (v > 1 ? ", " : "") + std::to_string(v);
      text += "] }\n";
    }
  }
  for (size_t i = 0; i < gates; ++i) {
    text += "[[gates]]\nworkload = \"w*\"\nmetric = \"latency.p99\"\nmax = \"5ms\"\n";
  }
  return text;
}

TEST(Admission, ASubmittedScenarioIsAtMostOneMiB) {
  // The loader takes a file of 4 MiB; a client's is bounded by what a submission honestly
  // holds (kMaxSubmittedScenarioBytes), and refused before it is parsed.
  const std::string head = "name = \"s\"\n" + kWorkload + "# ";
  std::string text = head + std::string(kMaxSubmittedScenarioBytes - head.size() - 1, 'x') + "\n";
  ASSERT_EQ(text.size(), kMaxSubmittedScenarioBytes);
  expect_admitted(admit_content("big.toml", text, allowing({})));
  text.insert(text.size() - 1, "x");
  const Admission a = admit_content("big.toml", text, allowing({}));
  EXPECT_FALSE(a.scenario);
  EXPECT_EQ(a.refusal, Refusal::kInvalid);
  EXPECT_EQ(a.message,
            "big.toml: error: the scenario is 1048577 bytes; this service takes a submitted "
            "scenario of at most 1048576 bytes (1 MiB); nothing was started: shorten it, or run "
            "it from the service's --scenarios folder\n");
}

// A client's scenario is bounded in what it holds, counted before it is checked: a gate's glob
// is matched against every workload, and 16,000 such gates on 16,000 workloads kept a request
// thread busy for 16 s. At the bounds it is admitted.
TEST(Admission, ASubmittedScenarioHoldsAtMostTheBoundedWorkloadsAndGates) {
  const size_t workloads = kMaxSubmittedWorkloads, gates = kMaxSubmittedGates;
  ASSERT_EQ(workloads, 1000u);
  ASSERT_EQ(gates, 1000u);
  // 1,000 workloads of the default timeout run longer than an hour (--max-run-seconds' default).
  AdmissionPolicy policy = allowing({});
  policy.max_run_ns = std::numeric_limits<int64_t>::max();
  expect_admitted(admit_content("many.toml", with_counts(workloads, 1, gates), policy));
  // One sweep of 10 values is 10 workloads.
  expect_admitted(admit_content("many.toml", with_counts(workloads - 9, 10, 1), policy));

  const Admission too_many_workloads =
      admit_content("many.toml", with_counts(workloads + 1, 1, 1), policy);
  EXPECT_FALSE(too_many_workloads.scenario);
  EXPECT_EQ(too_many_workloads.refusal, Refusal::kInvalid);
  // At the table past the bound (the 1,001st: 4 lines a workload after the name).
  EXPECT_EQ(too_many_workloads.message,
            "many.toml:4002:1: error: the scenario has 1001 workloads (each value of a sweep "
            "counted as one); a scenario submitted to `orchestrator serve` may have at most 1000 "
            "(nothing else in it was checked)\n");

  const Admission swept = admit_content("many.toml", with_counts(workloads - 9, 11, 1), policy);
  EXPECT_FALSE(swept.scenario);
  EXPECT_EQ(swept.refusal, Refusal::kInvalid);
  EXPECT_NE(swept.message.find("the scenario has 1001 workloads"), std::string::npos)
      << swept.message;

  const Admission too_many_gates = admit_content("many.toml", with_counts(1, 1, gates + 1), policy);
  EXPECT_FALSE(too_many_gates.scenario);
  EXPECT_EQ(too_many_gates.refusal, Refusal::kInvalid);
  EXPECT_EQ(too_many_gates.message,
            "many.toml:4006:1: error: the scenario has 1001 [[gates]] tables; a scenario "
            "submitted to `orchestrator serve` may have at most 1000 (nothing else in it was "
            "checked)\n");
}

// A scenario asked for by name is the client's text too: bounded as a submitted file's name
// (before, a 5000-byte name came back whole in NOT_FOUND), and quoted escaped.
TEST(Admission, AScenarioNameIsBoundedAndQuotedEscaped) {
  const AdmissionPolicy policy{std::filesystem::temp_directory_path().string(), {}, {}};
  const Admission long_name = admit_by_name(std::string(5000, 'a'), policy);
  EXPECT_FALSE(long_name.scenario);
  EXPECT_EQ(long_name.refusal, Refusal::kInvalid);
  EXPECT_EQ(long_name.message,
            "error: the scenario name sent is 5000 bytes long; at most 4096 are accepted (it "
            "names a file in the service's scenarios folder)\n");
  const Admission longest = admit_by_name(std::string(4096, 'a'), policy);
  EXPECT_EQ(longest.refusal, Refusal::kNotFound);
  EXPECT_EQ(longest.message,
            "no scenario '" + std::string(4096, 'a') + "' in the service's scenarios folder");
  const Admission forged = admit_by_name("x\n\x1b[31my", policy);
  EXPECT_EQ(forged.refusal, Refusal::kNotFound);
  EXPECT_EQ(forged.message, "no scenario 'x\\n\\x1b[31my' in the service's scenarios folder");
  const Admission dotted = admit_by_name(".\x1b[31m", policy);
  EXPECT_EQ(dotted.refusal, Refusal::kNotFound);
  EXPECT_EQ(dotted.message,
            "scenario name '.\\x1b[31m' must be a file name in the service's scenarios folder");
}

TEST(Admission, EveryRefusedProgramIsNamedAtOnce) {
  const Admission a =
      admit(kComparedRouters + "[worker_impls.x]\ncommand = [\"/bin/sleep\"]\n", allowing({}));
  expect_denied(a, "[routers.theirs] command '/bin/sh'");
  expect_denied(a, "[worker_impls.x] command '/bin/sleep'");
}

TEST(Admission, ABareNameIsResolvedOnPathAsTheSpawnerDoes) {
  // "sh" is started as PATH finds it, so allowing "sh" allows /bin/sh (and the other way).
  EXPECT_TRUE(command_allowed("sh", {"/bin/sh"}));
  EXPECT_TRUE(command_allowed("/bin/sh", {"sh"}));
  EXPECT_TRUE(command_allowed("/bin/../bin/sh", {"/bin/sh"}));
  EXPECT_FALSE(command_allowed("sh", {"/bin/sleep"}));
  EXPECT_FALSE(command_allowed("./sh", {"/bin/sh"}));  // the service's folder, not /bin
  EXPECT_FALSE(command_allowed("/bin/sh", {}));
}

TEST(Admission, TheEnvironmentOfTheServiceIsNeverRead) {
  ::setenv("BENCHGATE_ADMISSION_SECRET", "hunter2", 1);
  for (const std::string key : {"[defaults]\nwarmup = \"${env:BENCHGATE_ADMISSION_SECRET}\"",
                                "description = \"${env:BENCHGATE_ADMISSION_SECRET}\"",
                                "description = \"${env:BENCHGATE_ADMISSION_UNSET}\""}) {
    const Admission a =
        admit_content("client.toml", "name = \"s\"\n" + key + "\n" + kWorkload, allowing({}));
    EXPECT_FALSE(a.scenario) << key;
    EXPECT_NE(a.message.find("is not allowed in a scenario submitted to a service"),
              std::string::npos)
        << a.message;
    EXPECT_EQ(a.message.find("hunter2"), std::string::npos) << a.message;
    EXPECT_EQ(a.message.find("is not set"), std::string::npos) << a.message;
  }
}

// A CA file would be read on the service's machine (and whether it exists said back): a
// submitted scenario cannot name one, whether or not the file exists.
TEST(Admission, ACaFileIsRefusedInASubmission) {
  for (const char* file : {"/etc/hostname", "/no/such/file.pem"}) {
    const Admission a = admit_content("client.toml",
                                      std::string("name = \"s\"\n[[workloads]]\nname = \"w\"\n"
                                                  "target = \"/bench/hello\"\ntls = true\n"
                                                  "ca_file = \"") +
                                          file + "\"\n",
                                      allowing({}));
    EXPECT_FALSE(a.scenario) << file;
    EXPECT_NE(a.message.find("key 'ca_file' is not allowed in a scenario submitted to a service"),
              std::string::npos)
        << a.message;
    EXPECT_EQ(a.message.find("no such file"), std::string::npos) << a.message;
  }
}

// The router's certificate and key files would be read on the service's machine; tls = true
// (a certificate made for the run) is admitted.
TEST(Admission, RouterCertificateFilesAreRefusedInASubmission) {
  const std::string workload =
      "[[workloads]]\nname = \"w\"\ntarget = \"/bench/hello\"\ntls = true\n";
  for (const char* key : {"tls_cert", "tls_key"}) {
    const Admission a = admit_content("client.toml",
                                      std::string("name = \"s\"\n[router]\ntls = true\n") + key +
                                          " = \"/etc/hostname\"\n" + workload,
                                      allowing({}));
    EXPECT_FALSE(a.scenario) << key;
    EXPECT_NE(a.message.find(std::string("key '") + key +
                             "' is not allowed in a scenario submitted to a service"),
              std::string::npos)
        << a.message;
  }
  expect_admitted(admit_content("client.toml", "name = \"s\"\n[router]\ntls = true\n" + workload,
                                allowing({})));
}

TEST(Admission, ScenarioDirIsRefusedInASubmission) {
  const Admission a = admit("[worker_impls.w]\ncommand = [\"/bin/sh\", \"${scenario_dir}/w.sh\"]\n",
                            allowing({"/bin/sh"}));
  EXPECT_FALSE(a.scenario);
  EXPECT_NE(a.message.find("'${scenario_dir}' is not allowed in a scenario submitted"),
            std::string::npos)
      << a.message;
}

TEST(Admission, AScenarioOfTheFolderIsTrustedWithItsEnvironment) {
  const auto dir = std::filesystem::temp_directory_path() / "benchgate-admission-test";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "own.toml")
      << "name = \"own\"\ndescription = \"${env:BENCHGATE_ADMISSION_SECRET}\"\n"
      << "[router]\nimpl = \"command\"\ncommand = [\"/bin/sleep\"]\naddress = \"10.0.0.1:80\"\n"
      << kWorkload;
  ::setenv("BENCHGATE_ADMISSION_SECRET", "hunter2", 1);
  const Admission a = admit_by_name("own", AdmissionPolicy{dir.string(), {}, {}});
  std::filesystem::remove_all(dir);
  ASSERT_TRUE(a.scenario) << a.message;
  EXPECT_EQ(a.scenario->description, "hunter2");
}

const std::string kExternal = R"(
[router]
impl = "external"
address = "ADDRESS"
)";

std::string external(const std::string& address) {
  std::string text = kExternal;
  text.replace(text.find("ADDRESS"), 7, address);
  return text;
}

TEST(Admission, AnExternalAddressMustBeAllowed) {
  expect_denied(admit(external("10.1.2.3:80"), allowing({})),
                "client.toml:5:11: error: [router] address '10.1.2.3:80' is not allowed");
  expect_admitted(admit(external("10.1.2.3:80"), allowing({}, {"10.1.2.3:80"})));
  expect_denied(admit(external("10.1.2.3:80"), allowing({}, {"10.1.2.3:81"})),
                "[router] address '10.1.2.3:80'");
}

TEST(Admission, ALoopbackPortNotAllocatedByTheScenarioIsAServiceOfTheMachine) {
  expect_denied(admit(external("127.0.0.1:22"), allowing({})), "[router] address '127.0.0.1:22'");
  expect_denied(admit(external("localhost:5432"), allowing({})), "address 'localhost:5432'");
  expect_admitted(admit(external("127.0.0.1:${port:mine}"), allowing({})));
}

// The port is read by the one HOST:PORT parser (common/net/host_port.h), as the worker that
// connects reads it: "127.0.0.1:041234" reaches port 41234. It was compared as text, after a
// split at the last ':', before.
TEST(Admission, AnAllocatedLoopbackPortIsReadAsTheWorkersReadIt) {
  scenario::Scenario s;
  s.ports["mine"] = 41234;
  EXPECT_TRUE(address_allowed("127.0.0.1:41234", s, {}));
  EXPECT_TRUE(address_allowed("[::1]:41234", s, {}));
  EXPECT_TRUE(address_allowed("127.0.0.1:041234", s, {}));
  EXPECT_FALSE(address_allowed("127.0.0.1:41235", s, {}));
  EXPECT_FALSE(address_allowed("10.0.0.1:41234", s, {}));
  EXPECT_FALSE(address_allowed("::1:41234", s, {}));  // not HOST:PORT: the loader refuses it
}

TEST(Admission, TheReadinessProbeAndTheMetricsEndpointAreAddressesToo) {
  expect_denied(
      admit(kRouterCommand + "ready = \"tcp://192.168.0.1:9\"\n", allowing({"/bin/sleep"})),
      "[router] ready '192.168.0.1:9' is not allowed");
  expect_denied(admit(kRouterCommand + "metrics = \"http://169.254.169.254/latest\"\n",
                      allowing({"/bin/sleep"})),
                "[router] metrics '169.254.169.254:80' is not allowed");
  // A user name in the URL: the loader refuses it before the address rules are asked.
  const Admission credentials =
      admit(kRouterCommand + "metrics = \"http://u@127.0.0.1:9113/metrics\"\n",
            allowing({"/bin/sleep"}, {"127.0.0.1:9113"}));
  EXPECT_EQ(credentials.refusal, Refusal::kInvalid) << credentials.message;
  EXPECT_NE(credentials.message.find("a user name or password is not supported"), std::string::npos)
      << credentials.message;
  expect_admitted(admit(kRouterCommand + "metrics = \"http://127.0.0.1:9113/metrics\"\n",
                        allowing({"/bin/sleep"}, {"127.0.0.1:9113"})));
  expect_admitted(admit(kRouterCommand + "ready = \"tcp://127.0.0.1:${port:probe}\"\n",
                        allowing({"/bin/sleep"})));
  // Judged as the scrape connects: localhost is 127.0.0.1, no port is port 80.
  expect_admitted(admit(kRouterCommand + "metrics = \"http://localhost:9113/metrics\"\n",
                        allowing({"/bin/sleep"}, {"127.0.0.1:9113"})));
  expect_admitted(admit(kRouterCommand + "metrics = \"http://127.0.0.1/metrics\"\n",
                        allowing({"/bin/sleep"}, {"127.0.0.1:80"})));
}

// --allow-address may name a port of the service's own listeners (${port:NAME} never
// allocates one: it is in use): a router there could not listen, or the load, probes and
// scrapes would reach the service itself. Refused naming the listener, where the key is.
TEST(Admission, ARouterOnAPortOfTheServicesOwnListenersIsRefused) {
  AdmissionPolicy policy = allowing({"/bin/sleep"}, {"127.0.0.1:9464", "127.0.0.1:7700"});
  policy.own_listeners = {
      {"--listen", "0.0.0.0:7700"}, {"--metrics-listen", "127.0.0.1:9464"}, {"--http", ""}};
  const Admission external_router = admit(external("127.0.0.1:9464"), policy);
  expect_denied(external_router,
                "client.toml:5:11: error: [router] address '127.0.0.1:9464' is on the port of "
                "this service's own listener (serve --metrics-listen 127.0.0.1:9464): a "
                "submitted scenario's router may not listen there, nor its load, probes and "
                "scrapes reach the service; nothing was started\n");
  // A wildcard --listen holds the port on every address.
  expect_denied(admit(kRouterCommand + "metrics = \"http://127.0.0.1:7700/metrics\"\n", policy),
                "[router] metrics 'http://127.0.0.1:7700/metrics' is on the port of this "
                "service's own listener (serve --listen 0.0.0.0:7700)");
  // Another port, or no listener of the service given: as before.
  expect_admitted(admit(external("127.0.0.1:7700"), allowing({}, {"127.0.0.1:7700"})));
  policy.own_listeners = {{"--listen", "unix:/run/benchgate.sock"},
                          {"--metrics-listen", "127.0.0.1:9465"}};
  expect_admitted(admit(external("127.0.0.1:9464"), policy));
}

// WAMP workloads connect to these instead of `address`: the same rule.
TEST(Admission, TheTransportAddressesAreAddressesToo) {
  expect_denied(
      admit(kRouterCommand + "rawsocket_address = \"10.1.2.3:8081\"\n", allowing({"/bin/sleep"})),
      "[router] rawsocket_address '10.1.2.3:8081' is not allowed");
  expect_denied(
      admit(kRouterCommand + "websocket_address = \"127.0.0.1:22\"\n", allowing({"/bin/sleep"})),
      "[router] websocket_address '127.0.0.1:22' is not allowed");
  expect_admitted(admit(kRouterCommand + "rawsocket_address = \"10.1.2.3:8081\"\n",
                        allowing({"/bin/sleep"}, {"10.1.2.3:8081"})));
  expect_admitted(admit(kRouterCommand + "rawsocket_address = \"127.0.0.1:${port:rs}\"\n"
                                         "websocket_address = \"127.0.0.1:${port:ws}\"\n",
                        allowing({"/bin/sleep"})));
}

TEST(Admission, AMetricsURLIsAllowedByItsAddressAsWrittenToo) {
  // The operator allowed the address as the scenario writes it: the scrape connects there.
  expect_admitted(admit(kRouterCommand + "metrics = \"http://localhost:9113/metrics\"\n",
                        allowing({"/bin/sleep"}, {"localhost:9113"})));
  expect_admitted(admit(kRouterCommand + "metrics = \"http://localhost/metrics\"\n",
                        allowing({"/bin/sleep"}, {"localhost:80"})));
  // Another address, however written, is still refused.
  expect_denied(admit(kRouterCommand + "metrics = \"http://localhost:9114/metrics\"\n",
                      allowing({"/bin/sleep"}, {"localhost:9113", "127.0.0.1:9113"})),
                "[router] metrics '127.0.0.1:9114' is not allowed");
  // The `address` key is compared as written: it is what the load connects to, unparsed.
  expect_denied(admit(external("localhost:9115"), allowing({}, {"127.0.0.1:9115"})),
                "[router] address 'localhost:9115' is not allowed");
}

TEST(Admission, TheBundledRouterHasNoMetricsEndpointToReach) {
  // Its counters come through its control endpoint: the loader refuses the key for it.
  const Admission a = admit("[router]\nmetrics = \"http://10.9.8.7:9100/metrics\"\n", allowing({}));
  EXPECT_EQ(a.refusal, Refusal::kInvalid) << a.message;
  EXPECT_NE(a.message.find("key 'metrics' in [router] applies only to impl = \"command\" or "
                           "\"external\""),
            std::string::npos)
      << a.message;
}

TEST(Admission, AComparedRoutersAddressesAreChecked) {
  const std::string compare = R"(
[routers.a]
impl = "builtin"
[routers.b]
impl = "external"
address = "203.0.113.9:443"
[compare]
routers = ["a", "b"]
)";
  expect_denied(admit(compare, allowing({})), "[routers.b] address '203.0.113.9:443'");
}

TEST(Admission, TheBundledRouterAndWorkerNeedNothing) {
  expect_admitted(admit("", allowing({})));
  EXPECT_TRUE(programs_started(*admit("", allowing({})).scenario).empty());
  EXPECT_TRUE(addresses_reached(*admit("", allowing({})).scenario).empty());
}

// Every key of the scenario format, by what a submitted scenario can do with it.
const std::map<std::string, std::string>& reviewed_keys() {
  static const std::map<std::string, std::string> kKeys = [] {
    std::map<std::string, std::string> keys;
    for (const char* key : {"command", "adapter"}) {
      keys[key] = "starts a program: programs_started, --allow-command";
    }
    for (const char* key :
         {"address", "rawsocket_address", "websocket_address", "ready", "metrics"}) {
      keys[key] = "reaches an address: addresses_reached, --allow-address or ${port:NAME}";
    }
    keys["requires"] = "programs looked up on PATH: programs_started, --allow-command";
    keys["impl"] = "chooses which of the checked keys apply";
    keys["ca_file"] = "reads a file: refused in a submitted scenario (tls_section.cc)";
    keys["at"] =
        "[workers] at reaches addresses: refused unless the service's --workers-at names "
        "them (workers_not_allowed)";
    // How many of the allowed workers to wait for (1..1024), and what a lost one does.
    keys["count"] = "a value of the load: waits for workers the checks above allowed";
    keys["on_worker_loss"] = "a value of the load: fail or continue";
    keys["expect_failures"] =
        "how the run's own outcome is judged (a workload with no success passes); reaches "
        "nothing";
    for (const char* key : {"secret_file", "auth_config"}) {
      keys[key] = "reads a file: refused in a submitted scenario (wamp_auth_section.cc)";
    }
    for (const char* key : {"auth", "authid"}) {
      keys[key] = "how WAMP sessions authenticate (the secret is in secret_file)";
    }
    // WebSocket frame sizes, bounded (16 bytes to 16 MiB) by the loader: they change how the
    // same bytes are framed, not how many are sent, nor where.
    for (const char* key : {"fragment_bytes", "ws_fragment_bytes"}) {
      keys[key] = "a framing of the load within the loader's bounds";
    }
    // wamp_transfer's sizes, bounded by the loader (transfer_bytes 1 byte to 16 GiB, a chunk
    // within one message of the transport and of the bundled router): the same bounds hold
    // for a submitted scenario. The router keeps two chunks per transfer queued, so memory is
    // bounded by the chunk; time by the window and its drain timeout, after which the worker
    // closes the session (the router drops the transfer).
    for (const char* key : {"transfer_bytes", "chunk_bytes"}) {
      keys[key] = "a size of the load within the loader's bounds; reaches nothing new";
    }
    // A new session per call: connections to the same router the checks above allowed, one
    // at a time per session (in_flight 1), within the window.
    keys["session_per_operation"] = "a shape of the load: reaches nothing new";
    // How long the start of the system under test, or of a [worker_impls] worker, that the
    // checks above allowed is waited for: a bound like the workload's own timeout.
    keys["startup_timeout"] = "a wait of the run: reaches nothing new";
    // Shared registrations over the worker's own callee sessions (1..1024 per worker, to the
    // same router), a slow callee (at most 60 s; its queue of delayed answers bounded in count
    // and bytes), call timeouts (at most 1 h) and cancellation (at most 60 s): options of the
    // same calls to the router the checks above allowed.
    for (const char* key : {"callee_sessions", "invoke", "callee_delay", "call_timeout",
                            "cancel_after", "cancel_mode"}) {
      keys[key] = "a shape of the load within the loader's bounds: reaches nothing new";
    }
    for (const char* key : {"tls_cert", "tls_key"}) {
      keys[key] = "reads a file: refused in a submitted scenario (router_section.cc)";
    }
    // The load's shape and what it sends to the system under test the checks above allowed,
    // the gates (read the store), names and text (stored as bound parameters).
    for (const char* key : {"alpha",
                            "baseline",
                            "callee",
                            "compare",
                            "connections",
                            "defaults",
                            "description",
                            "duration",
                            "expect_body_bytes",
                            "expect_status",
                            "fail_fast",
                            "fail_when_underpowered",
                            "gates",
                            "headers",
                            "in_flight",
                            "kind",
                            "max",
                            "max_regression",
                            "method",
                            "metric",
                            "min",
                            "min_change",
                            "name",
                            "procedure",
                            "protocol",
                            "publishers",
                            "rate",
                            "realm",
                            "repetitions",
                            "request_bytes",
                            "router",
                            "routers",
                            "serializer",
                            "severity",
                            "subscribers",
                            "sweep",
                            "target",
                            "test",  // a paired gate's test: arithmetic on stored repetitions
                            "threads",
                            "timeout",
                            "topic",
                            "transport",
                            "variant",
                            "warmup",
                            "worker",
                            "worker_impls",
                            "workers",
                            "workload",
                            "workloads",
                            "confirm",
                            "tls",
                            "tls_version",
                            "ciphers",
                            "sni",
                            "insecure",
                            "alpn",
                            "streams",
                            "initial_window",
                            "max_frame_size",
                            "against",
                            "tls_resumption",
                            "new_connection_per_request"}) {
      keys[key] = "a value of the load, the gates or the report";
    }
    keys["max_start_skew"] = "a bound of the report (flag start_skew)";
    return keys;
  }();
  return kKeys;
}

void collect_keys(const nlohmann::json& node, std::set<std::string>& keys) {
  if (node.is_object()) {
    for (const auto& [name, value] : node.items()) {
      if (name == "properties" && value.is_object()) {
        for (const auto& [key, schema] : value.items()) keys.insert(key);
      }
      collect_keys(value, keys);
    }
  } else if (node.is_array()) {
    for (const auto& value : node) collect_keys(value, keys);
  }
}

// A key added to the format (a file to read such as `ca_file`, another address, another
// program) fails here until someone decides, in admission.cc, what a client may do with it.
TEST(Admission, EveryKeyOfTheScenarioFormatWasReviewedForWhatItReaches) {
  std::ifstream in(std::string(BENCHGATE_SOURCE_DIR) + "/schemas/scenario.schema.json");
  ASSERT_TRUE(in) << "cannot read the scenario schema";
  std::set<std::string> keys;
  collect_keys(nlohmann::json::parse(in), keys);
  ASSERT_GT(keys.size(), 40u);
  for (const std::string& key : keys) {
    EXPECT_EQ(reviewed_keys().count(key), 1u)
        << "scenario key '" << key << "' is new: decide in orchestrator/serve/admission.cc "
        << "whether a submitted scenario may use it (does it start a program, reach an address "
        << "or read a file of the service's machine?), then list it in reviewed_keys()";
  }
}

}  // namespace
}  // namespace benchgate::serve
