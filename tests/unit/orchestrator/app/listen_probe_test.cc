// why_cannot_listen (orchestrator/app/listen_probe.h), the check of serve --listen, --http,
// --metrics-listen and run --metrics-listen before a library binds. It split HOST:PORT by hand
// before: ":0" went to getaddrinfo as no host (every interface) and "::1:0" as host "::1",
// where the worker's and the router's listen flags refuse both.
#include "orchestrator/app/listen_probe.h"

#include <gtest/gtest.h>

namespace benchgate::app {
namespace {

TEST(ListenProbe, AnAddressThatIsNotHostPortIsRefusedWithTheSharedParsersReason) {
  EXPECT_EQ(why_cannot_listen(":0"),
            "its HOST is empty (give 127.0.0.1:PORT for this machine only, 0.0.0.0:PORT or "
            "[::]:PORT for every interface)");
  EXPECT_EQ(why_cannot_listen("::1:0"),
            "an IPv6 host is written in brackets, as in \"[::1]:7700\"");
  EXPECT_EQ(why_cannot_listen("127.0.0.1"), "it has no :PORT");
  EXPECT_EQ(why_cannot_listen("[::1]"), "its [IPv6] host is not bracketed on both sides");
  EXPECT_EQ(why_cannot_listen("x!:0"), "its host has a character no host name has ('!')");
  // The kernel would bind 99999 modulo 65536 (34463), a port nobody asked for.
  EXPECT_EQ(why_cannot_listen("127.0.0.1:99999"),
            "its port '99999' is not a number from 0 to 65535");
  EXPECT_EQ(why_cannot_listen("127.0.0.1:"), "its port '' is not a number from 0 to 65535");
}

TEST(ListenProbe, AFreePortAndAUnixPathAreLeftToTheServer) {
  EXPECT_EQ(why_cannot_listen("127.0.0.1:0"), std::nullopt);
  EXPECT_EQ(why_cannot_listen("localhost:0"), std::nullopt);
  EXPECT_EQ(why_cannot_listen("unix:/nonexistent/folder/socket"), std::nullopt);
}

}  // namespace
}  // namespace benchgate::app
