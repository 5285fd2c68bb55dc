// The prebuilt request bytes and the validation of a workload before it connects.
#include <gtest/gtest.h>

#include "common/workload/workload_limits.h"
#include "worker/engine/validate.h"
#include "worker/http/request_builder.h"

namespace benchgate::worker {
namespace {

TEST(RequestBuilder, BuildsAGetWithHostFromTheAddress) {
  HttpRequestSpec spec;
  spec.target = "/bench/hello";
  EXPECT_EQ(http::build_request(spec, "127.0.0.1:8080"),
            "GET /bench/hello HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n");
}

TEST(RequestBuilder, BuildsAPostWithThePatternBodyAndExtraHeaders) {
  HttpRequestSpec spec;
  spec.method = "POST";
  spec.target = "/echo";
  spec.host = "example";
  spec.request_body_bytes = 28;
  spec.headers = {{"X-A", "1"}};
  EXPECT_EQ(http::build_request(spec, "ignored:1"),
            "POST /echo HTTP/1.1\r\nHost: example\r\nX-A: 1\r\nContent-Length: 28\r\n\r\n"
            "abcdefghijklmnopqrstuvwxyzab");
}

TEST(RequestBuilder, LetsAHostHeaderReplaceTheDefault) {
  HttpRequestSpec spec;
  spec.headers = {{"host", "h"}};
  EXPECT_EQ(http::build_request(spec, "a:1"), "GET / HTTP/1.1\r\nhost: h\r\n\r\n");
}

TEST(RequestBuilder, RepeatsTheRequestForPipelinedBatches) {
  EXPECT_EQ(http::repeat_request("ab", 3), "ababab");
}

WorkloadSpec valid_spec() {
  WorkloadSpec spec;
  spec.name = std::string("w");
  spec.address = std::string("127.0.0.1:80");
  return spec;
}

TEST(ValidateWorkload, AcceptsAMinimalSpec) { EXPECT_TRUE(validate_workload(valid_spec()).ok()); }

TEST(ValidateWorkload, RejectsEachInvalidFieldWithAMessageNamingIt) {
  struct Case {
    void (*mutate)(WorkloadSpec&);
    const char* needle;
  };
  const Case cases[] = {
      {[](WorkloadSpec& s) { s.protocol = "http3"; }, "protocol 'http3'"},
      {[](WorkloadSpec& s) { s.address = "localhost"; }, "is not HOST:PORT"},
      {[](WorkloadSpec& s) { s.address = "h:0"; }, "invalid port"},
      {[](WorkloadSpec& s) { s.address = "h:70000"; }, "invalid port"},
      {[](WorkloadSpec& s) { s.connections = 0; }, "connections must be at least 1"},
      {[](WorkloadSpec& s) { s.threads = 0; }, "threads must be at least 1"},
      {[](WorkloadSpec& s) { s.in_flight = 0; }, "in_flight must be at least 1"},
      {[](WorkloadSpec& s) { s.rate = -1; }, "rate"},
      {[](WorkloadSpec& s) { s.http.target = "/a b"; }, "http.target"},
      {[](WorkloadSpec& s) { s.http.expect_status = 42; }, "expect_status"},
      {[](WorkloadSpec& s) {
         s.http.headers = {{"X", "a\r\nb"}};
       },
       "line break"},
      {[](WorkloadSpec& s) {
         s.http.headers = {{"Content-Length", "3"}};
       },
       "Content-Length"},
  };
  for (const Case& c : cases) {
    WorkloadSpec spec = valid_spec();
    c.mutate(spec);
    const auto result = validate_workload(spec);
    ASSERT_FALSE(result.ok()) << c.needle;
    EXPECT_NE(result.message().find(c.needle), std::string::npos) << result.message();
    EXPECT_EQ(result.message().rfind("workload 'w': ", 0), 0u) << result.message();
  }
}

// The bundled worker's limits (common/workload/workload_limits.h), which the scenario loader
// checks too: each refused just past it, and accepted at it.
TEST(ValidateWorkload, RefusesWhatIsPastTheSharedLimitsAndAcceptsTheLimits) {
  using namespace workload_limits;
  struct Case {
    void (*past)(WorkloadSpec&);
    void (*at)(WorkloadSpec&);
    const char* needle;
  };
  const Case cases[] = {
      {[](WorkloadSpec& s) { s.in_flight = kMaxInFlight + 1; },
       [](WorkloadSpec& s) { s.in_flight = kMaxInFlight; }, "in_flight must be at most 4096"},
      {[](WorkloadSpec& s) { s.threads = kMaxThreads + 1; },
       [](WorkloadSpec& s) { s.threads = kMaxThreads; }, "threads must be at most 1024"},
      {[](WorkloadSpec& s) { s.connections = kMaxConnectionsPerWorker + 1; },
       [](WorkloadSpec& s) { s.connections = kMaxConnectionsPerWorker; },
       "connections must be at most 1044480 per worker, got 1044481"},
      // 1e15 requests/s were accepted and reported as 999999999482377 errors.
      {[](WorkloadSpec& s) { s.rate = 2e6; }, [](WorkloadSpec& s) { s.rate = 1e6; },
       "rate per connection must be from 0.000001 to 1000000 requests/s, got 2000000 (rate "
       "2000000 over 1 connections)"},
      // So slow a connection's interval overflowed the nanosecond schedule, which then never
      // found the next due request (a load thread spinning for ever).
      {[](WorkloadSpec& s) { s.rate = 1e-12; }, [](WorkloadSpec& s) { s.rate = 1e-6; },
       "rate per connection must be from 0.000001"},
      {[](WorkloadSpec& s) {
         s.connections = 4;
         s.rate = 4e6 + 1;
       },
       [](WorkloadSpec& s) {
         s.connections = 4;
         s.rate = 4e6;
       },
       "over 4 connections"},
      {[](WorkloadSpec& s) {
         s.in_flight = 2;
         s.http.request_body_bytes = kMaxPipelinedBodyBytes / 2 + 1;
       },
       [](WorkloadSpec& s) {
         s.in_flight = 2;
         s.http.request_body_bytes = kMaxPipelinedBodyBytes / 2;
       },
       "request_body_bytes x in_flight must be at most 256 MiB"},
  };
  for (const Case& c : cases) {
    WorkloadSpec past = valid_spec();
    c.past(past);
    const auto refused = validate_workload(past);
    ASSERT_FALSE(refused.ok()) << c.needle;
    EXPECT_NE(refused.message().find(c.needle), std::string::npos) << refused.message();
    WorkloadSpec at = valid_spec();
    c.at(at);
    const auto accepted = validate_workload(at);
    EXPECT_TRUE(accepted.ok()) << c.needle << ": " << accepted.message();
  }
}

// wamp_pubsub opens its publishers and subscribers: their sum (in 64 bits, where 32 wrapped) is
// the worker's connections, and its rate is divided over the publishers.
TEST(ValidateWorkload, PubSubSessionsAndRatePerPublisherAreHeldToTheSharedLimits) {
  auto pubsub = [](uint32_t publishers, uint32_t subscribers, double rate) {
    WorkloadSpec spec = valid_spec();
    spec.protocol = "wamp_pubsub";
    spec.wamp.kind = WampRequestSpec::Kind::kPubSub;
    spec.wamp.publishers = publishers;
    spec.wamp.subscribers = subscribers;
    spec.connections = publishers + subscribers;  // as the orchestrator sets it (wraps here)
    spec.rate = rate;
    return validate_workload(spec);
  };
  const auto wrapped = pubsub(uint32_t{1} << 31, (uint32_t{1} << 31) + 4, 1000);
  ASSERT_FALSE(wrapped.ok());
  EXPECT_NE(wrapped.message().find("connections must be at most 1044480 per worker, got "
                                   "4294967300"),
            std::string::npos)
      << wrapped.message();
  const auto fast = pubsub(2, 100, 3e6);
  ASSERT_FALSE(fast.ok());
  EXPECT_NE(fast.message().find("got 1500000 (rate 3000000 over 2 publishers)"), std::string::npos)
      << fast.message();
  EXPECT_TRUE(pubsub(2, 100, 2e6).ok()) << pubsub(2, 100, 2e6).message();
}

// wamp_rpc's worker callee sessions are sockets beside the connections; 2^20 connections with
// the load threads' and the worker's own descriptors cannot fit under the default fs.nr_open.
TEST(ValidateWorkload, CalleeSessionsCountAmongAWorkersSessions) {
  using namespace workload_limits;
  auto rpc = [](uint32_t connections, uint32_t callee_sessions) {
    WorkloadSpec spec = valid_spec();
    spec.protocol = "wamp_rpc";
    spec.wamp.kind = WampRequestSpec::Kind::kRpc;
    spec.wamp.procedure = "bench.worker.echo";
    spec.wamp.worker_callee = true;
    spec.wamp.invoke = "roundrobin";
    spec.wamp.callee_sessions = callee_sessions;
    spec.connections = connections;
    return validate_workload(spec);
  };
  const auto past = rpc(kMaxConnectionsPerWorker - 1023, 1024);
  ASSERT_FALSE(past.ok());
  EXPECT_NE(past.message().find("connections must be at most 1044480 per worker with the callee "
                                "sessions, got 1044481"),
            std::string::npos)
      << past.message();
  const auto at = rpc(kMaxConnectionsPerWorker - 1024, 1024);
  EXPECT_TRUE(at.ok()) << at.message();
  WorkloadSpec nr_open = valid_spec();
  nr_open.connections = uint32_t{1} << 20;
  EXPECT_FALSE(validate_workload(nr_open).ok());
}

TEST(SplitAddress, UnderstandsBracketedIpv6) {
  auto hp = split_address("[::1]:9000");
  ASSERT_TRUE(hp.ok());
  EXPECT_EQ(hp->host, "::1");
  EXPECT_EQ(hp->port, 9000);
}

// The rule every benchgate address is split by (common/net/host_port.h): an IPv6 host in
// brackets, a host of the characters of a name or an address. Before, "::1:80" was taken as
// host "::1", port 80, where the orchestrator refuses it, and "a b:80" went to the resolver.
TEST(SplitAddress, RefusesAnUnbracketedIpv6HostAndCharactersNoHostHas) {
  const auto v6 = split_address("::1:80");
  ASSERT_FALSE(v6.ok());
  EXPECT_EQ(v6.message(),
            "address '::1:80' is not HOST:PORT: an IPv6 host is written in brackets, as in "
            "\"[::1]:7700\"");
  const auto blank = split_address("a b:80");
  ASSERT_FALSE(blank.ok());
  EXPECT_EQ(blank.message(),
            "address 'a b:80' is not HOST:PORT: its host has a character no host name has (' ')");
  const auto not_v6 = split_address("[nope]:80");
  ASSERT_FALSE(not_v6.ok());
  EXPECT_EQ(not_v6.message(),
            "address '[nope]:80' has a malformed [IPv6] host: 'nope' in brackets is not an IPv6 "
            "address");
  for (const char* bad : {"h:+80", "h:-1", "h:8 0", "h/x:80", "user@h:80"}) {
    EXPECT_FALSE(split_address(bad).ok()) << bad;
  }
  WorkloadSpec spec = valid_spec();
  spec.address = "::1:80";
  EXPECT_FALSE(validate_workload(spec).ok());
  auto zoned = split_address("[fe80::1%eth0]:80");
  ASSERT_TRUE(zoned.ok()) << zoned.message();
  EXPECT_EQ(zoned->host, "fe80::1%eth0");
}

TEST(ValidateWindow, RequiresAPositiveDuration) {
  WindowCommand window;
  EXPECT_FALSE(validate_window(window).ok());
  window.duration_ns = 1;
  EXPECT_TRUE(validate_window(window).ok());
}

}  // namespace
}  // namespace benchgate::worker
