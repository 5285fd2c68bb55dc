// [worker_impls.NAME]: what the loader accepts (a command, with ${scenario_dir} expanded) and
// what it rejects (an empty command, an undefined worker name, the reserved name "builtin").
#include <gtest/gtest.h>

#include <string>

#include "orchestrator/scenario/scenario_loader.h"

namespace benchgate::scenario {
namespace {

LoadResult load(const std::string& text) {
  LoadOptions options;
  options.getenv = [](const std::string&) -> std::optional<std::string> { return std::nullopt; };
  options.allocate_port = []() -> Expected<uint16_t> { return uint16_t{1234}; };
  return load_scenario_text(text, "/tmp/dir/s.toml", options);
}

std::string errors_of(const LoadResult& r) {
  std::string out;
  for (const Diagnostic& d : r.diagnostics) out += d.format() + "\n";
  return out;
}

TEST(ScenarioWorkerImpls, ReadsTheCommandAndExpandsScenarioDir) {
  auto r = load(R"(name = "w"
[worker_impls.python]
command = ["/usr/bin/python3", "${scenario_dir}/worker.py"]
[[workloads]]
name = "a"
worker = "python"
[[workloads]]
name = "b"
)");
  ASSERT_TRUE(r.ok()) << errors_of(r);
  const auto& impls = r.scenario->worker_impls;
  ASSERT_EQ(impls.count("python"), 1u);
  EXPECT_EQ(impls.at("python").command,
            (std::vector<std::string>{"/usr/bin/python3", "/tmp/dir/worker.py"}));
  EXPECT_EQ(r.scenario->workloads[0].worker, "python");
  EXPECT_EQ(r.scenario->workloads[1].worker, "builtin");
}

TEST(ScenarioWorkerImpls, AWorkerNotDefinedIsAnErrorNamingTheKnownOnes) {
  auto r = load(R"(name = "w"
[worker_impls.python]
command = ["python3"]
[[workloads]]
name = "a"
worker = "pyton"
)");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(errors_of(r).find("worker 'pyton' is not defined"), std::string::npos) << errors_of(r);
  EXPECT_NE(errors_of(r).find("known: builtin, python"), std::string::npos) << errors_of(r);
}

TEST(ScenarioWorkerImpls, AnEmptyCommandOrArgumentIsAnError) {
  for (const char* command : {"[]", "[\"\"]", "[\"a\", \"\"]"}) {
    auto r = load(std::string("name = \"w\"\n[worker_impls.x]\ncommand = ") + command +
                  "\n[[workloads]]\nname = \"a\"\n");
    ASSERT_FALSE(r.ok()) << command;
    EXPECT_NE(errors_of(r).find("must be a program and its arguments"), std::string::npos)
        << errors_of(r);
  }
}

TEST(ScenarioWorkerImpls, ACommandIsRequiredAndMustBeStrings) {
  auto missing = load("name = \"w\"\n[worker_impls.x]\n[[workloads]]\nname = \"a\"\n");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(errors_of(missing).find("'command'"), std::string::npos) << errors_of(missing);
  auto numbers =
      load("name = \"w\"\n[worker_impls.x]\ncommand = [1]\n[[workloads]]\nname = \"a\"\n");
  ASSERT_FALSE(numbers.ok());
  EXPECT_NE(errors_of(numbers).find("array of strings"), std::string::npos) << errors_of(numbers);
}

TEST(ScenarioWorkerImpls, BuiltinIsAReservedName) {
  auto r = load(
      "name = \"w\"\n[worker_impls.builtin]\ncommand = [\"x\"]\n[[workloads]]\nname = \"a\"\n");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(errors_of(r).find("'builtin' is the bundled worker's"), std::string::npos)
      << errors_of(r);
}

}  // namespace
}  // namespace benchgate::scenario
