// The addresses of orchestrator/metrics/exposition.h, read by the one HOST:PORT parser
// (common/net/host_port.h). By hand before: --pushgateway took any digits as a port (0, 99999:
// only the push after the run failed, as a warning) and a host such as "::1" or "a b";
// --metrics-listen "::1:0" reached civetweb, which said only that it could not bind.
#include "orchestrator/metrics/exposition.h"

#include <gtest/gtest.h>
#include <prometheus/registry.h>

#include <memory>

namespace benchgate::metrics {
namespace {

TEST(Exposition, APushgatewayUrlIsHttpHostPortWithAPortOf1To65535) {
  for (const char* good : {"http://127.0.0.1:9091", "http://pushgateway.monitoring:9091/",
                           "https://[::1]:9091", "http://gw_1:65535"}) {
    EXPECT_TRUE(validate_gateway_url(good)) << good;
  }
  EXPECT_EQ(validate_gateway_url("http://127.0.0.1:0").message(),
            "--pushgateway 'http://127.0.0.1:0': expected http://HOST:PORT: its port '0' is not a "
            "number from 1 to 65535");
  EXPECT_EQ(validate_gateway_url("http://h:99999").message(),
            "--pushgateway 'http://h:99999': expected http://HOST:PORT: its port '99999' is not a "
            "number from 1 to 65535");
  EXPECT_EQ(validate_gateway_url("http://::1:9091").message(),
            "--pushgateway 'http://::1:9091': expected http://HOST:PORT: an IPv6 host is written "
            "in brackets, as in \"[::1]:7700\"");
  EXPECT_EQ(validate_gateway_url("http://a b:9091").message(),
            "--pushgateway 'http://a b:9091': expected http://HOST:PORT: its host has a character "
            "no host name has (' ')");
  EXPECT_EQ(validate_gateway_url("http://:9091").message(),
            "--pushgateway 'http://:9091': expected http://HOST:PORT: its HOST is empty");
  EXPECT_EQ(validate_gateway_url("ftp://h:1").message(),
            "--pushgateway 'ftp://h:1': expected http://HOST:PORT");
}

TEST(Exposition, AMetricsListenAddressThatIsNotHostPortIsNamedWithItsReason) {
  auto registry = std::make_shared<prometheus::Registry>();
  EXPECT_EQ(MetricsEndpoint::start("::1:0", registry).message(),
            "--metrics-listen ::1:0: cannot listen: an IPv6 host is written in brackets, as in "
            "\"[::1]:7700\"");
  EXPECT_EQ(MetricsEndpoint::start(":0", registry).message(),
            "--metrics-listen :0: cannot listen: its HOST is empty");
  EXPECT_EQ(MetricsEndpoint::start("unix:/nonexistent/metrics.sock", registry).message(),
            "--metrics-listen unix:/nonexistent/metrics.sock: cannot listen: a Unix socket is not "
            "taken here, only HOST:PORT");
}

TEST(Exposition, TheMetricsAddressNamesTheBoundPort) {
  auto endpoint = MetricsEndpoint::start("127.0.0.1:0", std::make_shared<prometheus::Registry>());
  ASSERT_TRUE(endpoint) << endpoint.message();
  EXPECT_NE((*endpoint)->port(), 0);
  EXPECT_EQ((*endpoint)->address(), "127.0.0.1:" + std::to_string((*endpoint)->port()));
  EXPECT_EQ((*endpoint)->url(), "http://" + (*endpoint)->address() + "/metrics");
}

}  // namespace
}  // namespace benchgate::metrics
