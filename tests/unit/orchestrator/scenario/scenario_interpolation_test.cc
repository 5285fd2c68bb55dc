// ${scenario_dir}, ${env:NAME} and ${port:NAME} substitution.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "orchestrator/scenario/free_port.h"
#include "orchestrator/scenario/interpolation.h"
#include "orchestrator/scenario/scenario_loader.h"

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

// A scenario read through a descriptor's name (`validate <(generate)` names /dev/fd/63, `run
// /dev/stdin < pipe`) has no folder of its own: ${scenario_dir} and the files it names are the
// working directory's, not /dev/fd's.
TEST(Interpolation, AScenarioReadThroughADescriptorIsInTheWorkingDirectory) {
  const std::string here = scenario_dir_of("c.toml");
  for (const char* descriptor :
       {"/dev/fd/63", "/dev/stdin", "/proc/self/fd/0", "/proc/4242/fd/7", "/dev/fd/../fd/3"}) {
    EXPECT_EQ(scenario_dir_of(descriptor), here) << descriptor;
    EXPECT_EQ(path_beside_scenario(descriptor, "ca.pem"), "ca.pem") << descriptor;
    EXPECT_EQ(path_beside_scenario(descriptor, "/etc/ca.pem"), "/etc/ca.pem") << descriptor;
  }
  // Other folders are what they were.
  EXPECT_EQ(path_beside_scenario("/srv/gen/s.toml", "ca.pem"), "/srv/gen/ca.pem");
  EXPECT_EQ(path_beside_scenario("gen/./s.toml", "../ca.pem"), "ca.pem");
  EXPECT_EQ(path_beside_scenario("/proc/fd/s.toml", "ca.pem"), "/proc/fd/ca.pem");
  EXPECT_EQ(scenario_dir_of("/dev/shm/s.toml"), "/dev/shm");
}

TEST(Interpolation, TwoNamesNeverShareAPort) {
  // The kernel may hand the same free port out twice in a row; the second name asks again.
  std::vector<uint16_t> answers = {31000, 31000, 31000, 31001};
  size_t next = 0;
  Interpolator i("/srv", nullptr, [&]() -> Expected<uint16_t> { return answers.at(next++); });
  EXPECT_EQ(*i.expand("${port:first} ${port:dead}"), "31000 31001");
  EXPECT_EQ(next, 4u);
}

TEST(Interpolation, APortNoOtherNameCanHaveIsAnError) {
  Interpolator i("/srv", nullptr, []() -> Expected<uint16_t> { return uint16_t{31000}; });
  ASSERT_TRUE(i.expand("${port:a}").ok());
  auto second = i.expand("${port:b}");
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.message(), "cannot allocate a port for ${port:b} that no other name has");
}

TEST(Interpolation, LoopbackPortsLieOutsideTheKernelsEphemeralRange) {
  // bind(0) and outgoing connections take their ports from that range: a port outside it that
  // was free stays free until the system under test binds it.
  std::ifstream in("/proc/sys/net/ipv4/ip_local_port_range");
  std::stringstream text;
  text << in.rdbuf();
  auto range = parse_port_range(text.str());
  ASSERT_TRUE(range.has_value()) << text.str();
  const bool room = range->first > 10000 || range->second < 65535;
  for (int n = 0; n < 50; ++n) {
    auto port = allocate_loopback_port();
    ASSERT_TRUE(port.ok()) << port.message();
    if (room) {
      EXPECT_GE(*port, 10000);
      EXPECT_TRUE(*port < range->first || *port > range->second) << *port;
    }
  }
}

TEST(Interpolation, ThePortRangeIsReadAsTheKernelWritesIt) {
  EXPECT_EQ(parse_port_range("32768\t60999\n"), std::make_pair(uint16_t{32768}, uint16_t{60999}));
  EXPECT_EQ(parse_port_range("1024 65535"), std::make_pair(uint16_t{1024}, uint16_t{65535}));
  EXPECT_FALSE(parse_port_range("").has_value());
  EXPECT_FALSE(parse_port_range("60999 32768").has_value());
  EXPECT_FALSE(parse_port_range("32768").has_value());
  EXPECT_FALSE(parse_port_range("0 100").has_value());
  EXPECT_FALSE(parse_port_range("1 70000").has_value());
  EXPECT_FALSE(parse_port_range("1 2 3").has_value());
}

TEST(Interpolation, AtMostKMaxPortNamesDistinctNamesAreAllocated) {
  int allocations = 0;
  Interpolator i = make(&allocations);
  for (size_t n = 0; n < kMaxPortNames; ++n) {
    ASSERT_TRUE(i.expand("${port:p" + std::to_string(n) + "}").ok()) << n;
  }
  auto over = i.expand("${port:one_more}");
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.message(),
            "'${port:one_more}' is one more distinct port name than the 64 a scenario may use "
            "(one per address of the systems it starts)");
  // A name already allocated is still its port; nothing more was asked of the allocator.
  EXPECT_EQ(*i.expand("${port:p0}"), "30000");
  EXPECT_EQ(allocations, 64);
  EXPECT_EQ(i.ports().size(), 64u);
}

TEST(Interpolation, AScenarioOfManyPortNamesIsRefusedAtTheFirstNameOverTheBound) {
  // A 4 MiB file holds some 250,000 names: each was allocated, and checked against every name
  // before it. Now the loader allocates 64 and refuses the rest where they are written.
  std::string command = "command = [\"sleep\"";
  for (int n = 0; n < 10000; ++n) command += ", \"${port:p" + std::to_string(n) + "}\"";
  command += "]\n";
  const std::string text = "name = \"d\"\n[router]\nimpl = \"command\"\n" + command +
                           "address = \"127.0.0.1:${port:p0}\"\n"
                           "[[workloads]]\nname = \"w\"\nprotocol = \"http1\"\n"
                           "target = \"/\"\nconnections = 1\n";
  int allocations = 0;
  LoadOptions options;
  options.allocate_port = [&allocations]() -> Expected<uint16_t> {
    return static_cast<uint16_t>(20000 + allocations++);
  };
  const LoadResult result = load_scenario_text(text, "ports.toml", options);
  EXPECT_FALSE(result.ok());
  EXPECT_EQ(allocations, 64);
  ASSERT_FALSE(result.diagnostics.empty());
  // The 65th name, the 66th element of the array on line 4.
  const size_t column = command.find("\"${port:p64}\"") + 1;
  EXPECT_EQ(result.diagnostics.front().format(),
            "ports.toml:4:" + std::to_string(column) +
                ": error: key 'command': '${port:p64}' is one more distinct port name than the 64 "
                "a scenario may use (one per address of the systems it starts)");
}

}  // namespace
}  // namespace benchgate::scenario
