// The addresses benchgate connects to, by one check (orchestrator/scenario/dial_address.h):
// `run --server ADDR`, `--workers-at` and [workers] at, [router] address. Before, each had a
// check of its own: `run --server dns:svc:7700` was refused while `--workers-at dns:svc:7700`
// was taken, `--workers-at load1` (no port) was taken while [workers] at = "load1" was
// refused, and each said so in words of its own. `run --server 127.0.0.1` (no port) was taken
// before any check, gRPC dialled it at a port of its own choosing, and the client exited 3 as
// if the service were down, for a usage mistake.
#include <gtest/gtest.h>

#include <string>

#include "orchestrator/grpc/channel.h"
#include "orchestrator/scenario/dial_address.h"
#include "orchestrator/scenario/scenario_loader.h"
#include "orchestrator/workers/discovery.h"

namespace benchgate::grpcutil {
namespace {

TEST(ServerAddress, HostPortDnsNameAndUnixPathAreTaken) {
  for (const char* good :
       {"127.0.0.1:7700", "localhost:7700", "[::1]:7700", "[fe80::1%eth0]:7700", "serve.example:1",
        "10.0.0.2:65535", "dns:benchgate-serve:7700", "unix:/run/benchgate/serve.sock"}) {
    EXPECT_TRUE(check_dial_address("--server", good)) << good;
  }
}

TEST(ServerAddress, AnAddressWithoutAUsablePortIsAUsageMistakeNamingTheFlag) {
  EXPECT_EQ(check_dial_address("--server", "127.0.0.1").message(),
            "--server '127.0.0.1' is not an address to connect to: it has no :PORT; expected "
            "HOST:PORT with a port of 1 to 65535 (\"127.0.0.1:7700\", \"[::1]:7700\"), "
            "dns:NAME:PORT or unix:PATH");
  EXPECT_EQ(check_dial_address("--server", "127.0.0.1:0").message(),
            "--server '127.0.0.1:0' is not an address to connect to: its port '0' is not a "
            "number from 1 to 65535; expected HOST:PORT with a port of 1 to 65535 "
            "(\"127.0.0.1:7700\", \"[::1]:7700\"), dns:NAME:PORT or unix:PATH");
  for (const char* bad :
       {"", "127.0.0.1:", "127.0.0.1:65536", "127.0.0.1:77x", ":7700", "::1:7700", "[::1]",
        "[::1:7700", "[nope]:7700", "unix:", "a b:7700", "dns:", "dns::7700", "dns:svc",
        "dns:svc:0", "dns:[::1]:7700", "http://127.0.0.1:7700", "a,b:7700"}) {
    EXPECT_FALSE(check_dial_address("--server", bad)) << bad;
  }
  // The value is shown escaped: a line break or an escape does not reach the terminal raw.
  EXPECT_EQ(check_dial_address("--server", "x\n\x1b[31m")
                .message()
                .rfind("--server 'x\\n\\x1b[31m' is not an address to connect to", 0),
            0u);
}

// The host is split by the rule every benchgate address is (common/net/host_port.h): the
// characters of a name or an address only, a zone after '%' in brackets only. Before, only
// blanks and "/@?#,\\" were refused, so "x!:7700" and "*:7700" went on to a failed resolve.
TEST(ServerAddress, AHostHasOnlyTheCharactersOfANameOrAnAddress) {
  EXPECT_EQ(check_dial_address("--server", "x!:7700").message(),
            "--server 'x!:7700' is not an address to connect to: its host has a character no "
            "host name has ('!'); expected HOST:PORT with a port of 1 to 65535 "
            "(\"127.0.0.1:7700\", \"[::1]:7700\"), dns:NAME:PORT or unix:PATH");
  for (const char* bad : {"*:7700", "h%eth0:7700", "[fe80::1%]:7700", "dns:a$b:7700", "h:+7700"}) {
    EXPECT_FALSE(check_dial_address("--server", bad)) << bad;
  }
  EXPECT_NE(check_dial_address("--server", "dns:[::1]:7700")
                .message()
                .find("its NAME is a host name to resolve, not a bracketed address"),
            std::string::npos);
  for (const char* good : {"my_worker-1.svc:7700", "dns:my_worker-1.svc:7700"}) {
    EXPECT_TRUE(check_dial_address("--server", good)) << good;
  }
}

// What [workers] at says of an entry: the diagnostic's text after "error: ", or "" when the
// scenario loads.
std::string workers_at_says(const std::string& entry) {
  const auto loaded = scenario::load_scenario_text(
      "name = \"s\"\n[workers]\nat = \"" + entry + "\"\n[[workloads]]\nname = \"a\"\n", "s.toml");
  std::string said;
  for (const auto& d : loaded.diagnostics) said += d.message;
  return said;
}

// `run --server`, `--workers-at` and [workers] at take and refuse the same addresses, and say
// why in the same words after their own flag or key.
TEST(ServerAddress, TheServerTheWorkersAndTheScenarioTakeOneFormOfAddress) {
  for (const std::string address :
       {"127.0.0.1:7800", "[fd00::7]:7800", "load1:7800", "dns:benchgate-worker:7800",
        "unix:/run/benchgate/worker.sock", "load1", "dns:workers", "dns::7800", "10.0.0.7:0",
        "::1:7800", "unix:"}) {
    const auto server = check_dial_address("--server", address);
    const auto workers_at = workers::check_worker_entries({address});
    const std::string key = workers_at_says(address);
    EXPECT_EQ(server.ok(), workers_at.ok()) << address;
    EXPECT_EQ(server.ok(), key.empty()) << address << ": " << key;
    if (server.ok()) continue;
    const std::string why = server.message().substr(std::string("--server").size());
    EXPECT_EQ(workers_at.message(), "--workers-at" + why);
    EXPECT_EQ(key, "key 'at' in [workers]:" + why);
  }
}

// [router] address is reached over TCP by the workers and the readiness probe: HOST:PORT only,
// refused in the same words.
TEST(ServerAddress, ARouterAddressIsHostPortOnly) {
  const scenario::DialForms tcp{};
  EXPECT_TRUE(scenario::check_dial_address("key 'address' in [router]:", "127.0.0.1:8080", tcp));
  EXPECT_EQ(scenario::check_dial_address("key 'address' in [router]:", "unix:/x", tcp).message(),
            "key 'address' in [router]: 'unix:/x' is not an address to connect to: a unix:PATH "
            "is not taken here (this connects over TCP); expected HOST:PORT with a port of 1 to "
            "65535 (\"127.0.0.1:7700\", \"[::1]:7700\")");
  EXPECT_FALSE(scenario::check_dial_address("key 'address' in [router]:", "dns:r:80", tcp));
}

}  // namespace
}  // namespace benchgate::grpcutil
