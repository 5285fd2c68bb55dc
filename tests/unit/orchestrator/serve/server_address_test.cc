// `run --server ADDR`: the address is checked as a flag's value before anything is submitted.
// Before, `--server 127.0.0.1` (no port) was taken, gRPC dialled it at a port of its own
// choosing, and the client exited 3 as if the service were down, for a usage mistake.
#include <gtest/gtest.h>

#include <string>

#include "orchestrator/grpc/channel.h"

namespace benchgate::grpcutil {
namespace {

TEST(ServerAddress, HostPortAndUnixPathAreTaken) {
  for (const char* good : {"127.0.0.1:7700", "localhost:7700", "[::1]:7700", "serve.example:1",
                           "10.0.0.2:65535", "unix:/run/benchgate/serve.sock"}) {
    EXPECT_TRUE(check_dial_address("--server", good)) << good;
  }
}

TEST(ServerAddress, AnAddressWithoutAUsablePortIsAUsageMistakeNamingTheFlag) {
  EXPECT_EQ(check_dial_address("--server", "127.0.0.1").message(),
            "--server '127.0.0.1' is not HOST:PORT with a port of 1 to 65535 (\"127.0.0.1:7700\", "
            "\"[::1]:7700\") or unix:PATH: the address the server's READY line names");
  for (const char* bad : {"", "127.0.0.1:", "127.0.0.1:0", "127.0.0.1:65536", "127.0.0.1:77x",
                          ":7700", "::1:7700", "[::1]", "unix:", "a b:7700"}) {
    EXPECT_FALSE(check_dial_address("--server", bad)) << bad;
  }
  // The value is shown escaped: a line break or an escape does not reach the terminal raw.
  EXPECT_EQ(check_dial_address("--server", "x\n\x1b[31m")
                .message()
                .rfind("--server 'x\\n\\x1b[31m' is not HOST:PORT", 0),
            0u);
}

}  // namespace
}  // namespace benchgate::grpcutil
