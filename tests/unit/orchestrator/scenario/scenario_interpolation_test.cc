// ${scenario_dir}, ${env:NAME} and ${port:NAME} substitution.
#include <gtest/gtest.h>

#include <string>

#include "orchestrator/scenario/free_port.h"
#include "orchestrator/scenario/interpolation.h"

namespace benchgate::scenario {
namespace {

Interpolator make(int* allocations) {
  return Interpolator(
      "/srv/scenarios",
      [](const std::string& name) -> std::optional<std::string> {
        if (name == "HOST") return "10.0.0.7";
        return std::nullopt;
      },
      [allocations]() -> Expected<uint16_t> {
        return static_cast<uint16_t>(30000 + (*allocations)++);
      });
}

TEST(Interpolation, ScenarioDirAndEnvironmentAreSubstituted) {
  int allocations = 0;
  Interpolator i = make(&allocations);
  auto out = i.expand("${scenario_dir}/nginx.conf on ${env:HOST}, $HOME and $ stay");
  ASSERT_TRUE(out.ok()) << out.message();
  EXPECT_EQ(*out, "/srv/scenarios/nginx.conf on 10.0.0.7, $HOME and $ stay");
  EXPECT_EQ(allocations, 0);
}

TEST(Interpolation, APortIsAllocatedOncePerNameAndReusedEverywhere) {
  int allocations = 0;
  Interpolator i = make(&allocations);
  EXPECT_EQ(*i.expand("${port:a}"), "30000");
  EXPECT_EQ(*i.expand("127.0.0.1:${port:b} ${port:a}"), "127.0.0.1:30001 30000");
  EXPECT_EQ(allocations, 2);
  EXPECT_EQ(i.ports().at("a"), 30000);
  EXPECT_EQ(i.ports().at("b"), 30001);
}

TEST(Interpolation, UnsetVariableUnknownFormAndUnterminatedAreErrors) {
  int allocations = 0;
  Interpolator i = make(&allocations);
  auto unset = i.expand("${env:MISSING}");
  ASSERT_FALSE(unset.ok());
  EXPECT_EQ(unset.message(), "environment variable 'MISSING' is not set (used as ${env:MISSING})");
  auto unknown = i.expand("${home}");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.message().find("unknown interpolation '${home}'"), std::string::npos);
  EXPECT_FALSE(i.expand("${scenario_dir").ok());
  EXPECT_FALSE(i.expand("${port:}").ok());
}

TEST(Interpolation, ASubmittedScenarioReadsNeitherTheEnvironmentNorTheFolder) {
  int allocations = 0;
  int lookups = 0;
  Interpolator i(
      "/srv/scenarios",
      [&lookups](const std::string&) -> std::optional<std::string> {
        ++lookups;
        return "10.0.0.7";
      },
      [&allocations]() -> Expected<uint16_t> {
        return static_cast<uint16_t>(30000 + allocations++);
      },
      /*submitted=*/true);
  auto env = i.expand("${env:HOST}");
  ASSERT_FALSE(env.ok());
  EXPECT_EQ(env.message(),
            "'${env:HOST}' is not allowed in a scenario submitted to a service: it would read "
            "the service's environment");
  auto dir = i.expand("${scenario_dir}/x");
  ASSERT_FALSE(dir.ok());
  EXPECT_EQ(dir.message().find("/srv"), std::string::npos) << dir.message();
  EXPECT_EQ(lookups, 0);
  EXPECT_EQ(*i.expand("127.0.0.1:${port:a}"), "127.0.0.1:30000");  // ports are this load's
}

TEST(Interpolation, ScenarioDirIsTheAbsoluteFolderOfTheFile) {
  EXPECT_EQ(scenario_dir_of("/a/b/c.toml"), "/a/b");
  EXPECT_EQ(scenario_dir_of("/a/./b/../c.toml"), "/a");
  const std::string relative = scenario_dir_of("c.toml");
  EXPECT_EQ(relative.front(), '/');
  EXPECT_NE(relative.back(), '/');
}

TEST(Interpolation, LoopbackPortAllocationReturnsAUsablePort) {
  auto port = allocate_loopback_port();
  ASSERT_TRUE(port.ok()) << port.message();
  EXPECT_GT(*port, 0);
}

}  // namespace
}  // namespace benchgate::scenario
