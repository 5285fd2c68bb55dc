// The prebuilt request bytes and the validation of a workload before it connects.
#include <gtest/gtest.h>

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

TEST(SplitAddress, UnderstandsBracketedIpv6) {
  auto hp = split_address("[::1]:9000");
  ASSERT_TRUE(hp.ok());
  EXPECT_EQ(hp->host, "::1");
  EXPECT_EQ(hp->port, 9000);
}

TEST(ValidateWindow, RequiresAPositiveDuration) {
  WindowCommand window;
  EXPECT_FALSE(validate_window(window).ok());
  window.duration_ns = 1;
  EXPECT_TRUE(validate_window(window).ok());
}

}  // namespace
}  // namespace benchgate::worker
