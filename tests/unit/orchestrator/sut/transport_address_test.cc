// Where the workers of a WAMP workload connect on a command or external system: the address the
// scenario gives for the workload's transport (rawsocket_address, websocket_address), else the
// one `address`, with a hint naming the key when that default could not be connected to; and
// what its start waits for.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "orchestrator/sut/external_system.h"

namespace benchgate::sut {
namespace {

using Probes = std::vector<std::pair<std::string, std::string>>;

scenario::RouterConfig external(const std::string& address) {
  scenario::RouterConfig config;
  config.impl = scenario::RouterImpl::kExternal;
  config.address = address;
  config.ready = "tcp://" + address;  // as the loader sets it without `ready`
  return config;
}

TEST(TransportAddress, EachTransportConnectsToItsOwnAddressElseTheOneAddress) {
  scenario::RouterConfig config = external("127.0.0.1:8080");
  {
    ExternalSystem system(config, SutContext{});
    EXPECT_EQ(system.wamp_address("rawsocket").value(), "127.0.0.1:8080");
    EXPECT_EQ(system.wamp_address("websocket").value(), "127.0.0.1:8080");
  }
  config.rawsocket_address = "127.0.0.1:8081";
  ExternalSystem system(config, SutContext{});
  EXPECT_EQ(system.address(), "127.0.0.1:8080");
  EXPECT_EQ(system.wamp_address("rawsocket").value(), "127.0.0.1:8081");
  EXPECT_EQ(system.wamp_address("websocket").value(), "127.0.0.1:8080");
}

TEST(TransportAddress, TheHintNamesTheKeyOnlyWhereTheScenarioGaveNone) {
  scenario::RouterConfig config = external("127.0.0.1:8080");
  config.websocket_address = "127.0.0.1:8082";
  ExternalSystem system(config, SutContext{});
  const std::string hint = system.wamp_address_hint("rawsocket");
  EXPECT_NE(hint.find("names no rawsocket_address"), std::string::npos) << hint;
  EXPECT_NE(hint.find("its 'address' 127.0.0.1:8080"), std::string::npos) << hint;
  EXPECT_NE(hint.find("give key 'rawsocket_address' = \"HOST:PORT\""), std::string::npos) << hint;
  EXPECT_EQ(system.wamp_address_hint("websocket"), "");
}

TEST(TransportAddress, WithoutReadyTheStartWaitsForEveryAddressTheWorkersUse) {
  scenario::RouterConfig config = external("127.0.0.1:8080");
  EXPECT_EQ(readiness_probes(config), (Probes{{"127.0.0.1:8080", "address"}}));
  config.rawsocket_address = "127.0.0.1:8081";
  config.websocket_address = "127.0.0.1:8080";  // the same port: probed once
  EXPECT_EQ(readiness_probes(config),
            (Probes{{"127.0.0.1:8080", "address"}, {"127.0.0.1:8081", "rawsocket_address"}}));
  config.websocket_address = "localhost:8082";
  EXPECT_EQ(readiness_probes(config), (Probes{{"127.0.0.1:8080", "address"},
                                              {"127.0.0.1:8081", "rawsocket_address"},
                                              {"localhost:8082", "websocket_address"}}));
  // A `ready` the scenario gives is the one probe it asked for.
  config.ready = "tcp://127.0.0.1:9000";
  config.key_where["ready"] = scenario::Location{"s.toml", 5, 9};
  EXPECT_EQ(readiness_probes(config), (Probes{{"tcp://127.0.0.1:9000", "ready"}}));
}

// A listening socket on a loopback port of the kernel's choosing; closed with the object.
struct Listener {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  uint16_t port = 0;
  Listener() {
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 && ::listen(fd, 8) == 0 &&
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
      port = ntohs(addr.sin_port);
    }
  }
  ~Listener() { ::close(fd); }
};

TEST(TransportAddress, AnExternalSystemIsNotReadyWhileATransportAddressRefuses) {
  Listener http;
  Listener rawsocket;
  ASSERT_NE(http.port, 0);
  ASSERT_NE(rawsocket.port, 0);
  scenario::RouterConfig config = external("127.0.0.1:" + std::to_string(http.port));
  config.rawsocket_address = "127.0.0.1:" + std::to_string(rawsocket.port);
  config.startup_timeout_ns = 200'000'000;
  {
    ExternalSystem system(config, SutContext{});
    auto started = system.start(std::chrono::steady_clock::now() + std::chrono::milliseconds(200));
    EXPECT_TRUE(started) << started.error().text();
  }
  config.websocket_address = "127.0.0.1:1";  // nothing listens there: refused
  ExternalSystem system(config, SutContext{});
  auto started = system.start(std::chrono::steady_clock::now() + std::chrono::milliseconds(200));
  ASSERT_FALSE(started);
  // The key is named: the start waited on three addresses, and the address alone does not say
  // which key gave it.
  EXPECT_NE(started.error().text().find("nothing accepted connections on 127.0.0.1:1 (key "
                                        "'websocket_address') within 200ms (startup_timeout"),
            std::string::npos)
      << started.error().text();
}

}  // namespace
}  // namespace benchgate::sut
