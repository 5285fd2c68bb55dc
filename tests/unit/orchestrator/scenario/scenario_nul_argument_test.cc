// A NUL byte (TOML's \u0000) in a command's argument vector: refused where it is written, naming
// the key and the element, because argv's C strings would cut the argument at it and the child
// would run something other than what was checked. Tabs and line breaks stay (sh -c scripts).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "orchestrator/scenario/scenario_loader.h"
#include "scenario_test_support.h"

namespace benchgate::scenario {
namespace {

using test_support::diagnostic_lines;
using test_support::diagnostics_text;
using test_support::load_hermetic;

TEST(ScenarioNulArgument, AWorkerCommandArgumentHoldingANulIsRefusedAtIt) {
  auto r = load_hermetic(R"(name = "s"
[worker_impls.w]
command = ["wrk", "--adapter\u0000", "x"]
[[workloads]]
name = "a"
worker = "w"
)");
  EXPECT_EQ(diagnostic_lines(r),
            (std::vector<std::string>{
                "s.toml:3:19: error: key 'command[1]' in [worker_impls.w] holds a NUL byte "
                "(\\u0000), which no program argument or name can carry"}));
}

TEST(ScenarioNulArgument, ARouterCommandHoldingANulIsRefusedAtIt) {
  auto r = load_hermetic(R"(name = "s"
[router]
impl = "command"
command = ["nginx\u0000-evil"]
address = "127.0.0.1:${port:r}"
[[workloads]]
name = "a"
)");
  EXPECT_EQ(
      diagnostic_lines(r),
      (std::vector<std::string>{"s.toml:4:12: error: key 'command[0]' in [router] holds a NUL byte "
                                "(\\u0000), which no program argument or name can carry"}));
}

TEST(ScenarioNulArgument, ANamedRouterCommandHoldingANulIsRefusedAtIt) {
  auto r = load_hermetic(R"(name = "s"
[routers.a]
impl = "builtin"
[routers.b]
impl = "command"
command = ["nginx", "-c", "x\u0000y"]
address = "127.0.0.1:${port:b}"
[compare]
routers = ["a", "b"]
[[workloads]]
name = "w"
repetitions = 4
)");
  EXPECT_EQ(diagnostic_lines(r),
            (std::vector<std::string>{
                "s.toml:6:27: error: key 'command[2]' in [routers.b] holds a NUL byte "
                "(\\u0000), which no program argument or name can carry"}));
}

TEST(ScenarioNulArgument, TabsAndLineBreaksInAnArgumentStay) {
  auto r = load_hermetic(R"(name = "s"
[worker_impls.w]
command = ["sh", "-c", "echo a\tb\necho c"]
[[workloads]]
name = "a"
worker = "w"
)");
  ASSERT_TRUE(r.ok()) << diagnostics_text(r);
  EXPECT_EQ(r.scenario->worker_impls.at("w").command,
            (std::vector<std::string>{"sh", "-c", "echo a\tb\necho c"}));
}

}  // namespace
}  // namespace benchgate::scenario
