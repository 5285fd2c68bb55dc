// The HTTP/2 driver's request header list (worker/http2/request_headers) and the TLS client
// context (worker/http/tls_client): what nghttp2 is handed, and what OpenSSL refuses up front.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "worker/engine/validate.h"
#include "worker/http/tls_client.h"
#include "worker/http2/request_headers.h"

namespace benchgate::worker {
namespace {

std::map<std::string, std::string> fields(const http2::RequestHeaders& headers) {
  std::map<std::string, std::string> out;
  for (size_t i = 0; i < headers.size(); ++i) {
    const nghttp2_nv& nv = headers.nva()[i];
    out.emplace(std::string(reinterpret_cast<const char*>(nv.name), nv.namelen),
                std::string(reinterpret_cast<const char*>(nv.value), nv.valuelen));
  }
  return out;
}

TEST(Http2RequestHeaders, PseudoHeadersFirstAndNamesInLowerCase) {
  HttpRequestSpec spec;
  spec.method = "GET";
  spec.target = "/bench/hello";
  spec.headers = {{"X-Trace", "1"}, {"Connection", "keep-alive"}};
  http2::RequestHeaders headers(spec, "127.0.0.1:8443", /*tls=*/true);
  ASSERT_GE(headers.size(), 4u);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(headers.nva()[0].name)), ":method");
  const auto f = fields(headers);
  EXPECT_EQ(f.at(":method"), "GET");
  EXPECT_EQ(f.at(":scheme"), "https");
  EXPECT_EQ(f.at(":authority"), "127.0.0.1:8443");
  EXPECT_EQ(f.at(":path"), "/bench/hello");
  EXPECT_EQ(f.at("x-trace"), "1");
  // HTTP/2 forbids connection-specific fields (RFC 9113 8.2.2).
  EXPECT_EQ(f.count("connection"), 0u);
  EXPECT_EQ(f.count("content-length"), 0u);
  EXPECT_TRUE(headers.body().empty());
}

TEST(Http2RequestHeaders, HostBecomesAuthorityAndABodyGetsItsLength) {
  HttpRequestSpec spec;
  spec.method = "POST";
  spec.target = "/bench/echo";
  spec.request_body_bytes = 30;
  spec.headers = {{"Host", "example.test"}};
  http2::RequestHeaders headers(spec, "127.0.0.1:80", /*tls=*/false);
  const auto f = fields(headers);
  EXPECT_EQ(f.at(":scheme"), "http");
  EXPECT_EQ(f.at(":authority"), "example.test");
  EXPECT_EQ(f.count("host"), 0u);
  EXPECT_EQ(f.at("content-length"), "30");
  EXPECT_EQ(headers.body().size(), 30u);
  EXPECT_EQ(headers.body().substr(0, 3), "abc");
}

TEST(TlsClientContext, RefusesCiphersThatMatchNothing) {
  TlsSpec tls;
  tls.enabled = true;
  tls.insecure = true;
  tls.ciphers = "NO-SUCH-CIPHER";
  auto context = http::make_client_context(tls, {"h2"});
  ASSERT_FALSE(context);
  EXPECT_NE(context.message().find("tls.ciphers 'NO-SUCH-CIPHER' match no cipher"),
            std::string::npos)
      << context.message();
  tls.version = "1.3";
  tls.ciphers = "TLS_AES_128_GCM_SHA256";
  EXPECT_TRUE(http::make_client_context(tls, {"h2"}));
}

TEST(TlsClientContext, RefusesACaThatIsNoCertificate) {
  TlsSpec tls;
  tls.enabled = true;
  tls.ca_pem = "not a certificate";
  auto context = http::make_client_context(tls, {"http/1.1"});
  ASSERT_FALSE(context);
  EXPECT_NE(context.message().find("tls.ca_pem is not a PEM certificate"), std::string::npos)
      << context.message();
}

TEST(ValidateHttp2, StreamsAndSettingsAreBounded) {
  WorkloadSpec spec;
  spec.name = "w";
  spec.protocol = "http2";
  spec.address = "127.0.0.1:80";
  EXPECT_TRUE(validate_workload(spec));
  spec.http2.streams = 0;
  EXPECT_FALSE(validate_workload(spec));
  spec.http2.streams = 8;
  spec.http2.max_frame_size = 1000;
  auto bad = validate_workload(spec);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.message().find("http2.max_frame_size must be 16384..16777215"), std::string::npos);
  spec.http2.max_frame_size = 16384;
  // TLS applies to the WAMP transports too (wss, RawSocket over TLS).
  spec.protocol = "wamp_rpc";
  spec.tls.enabled = true;
  EXPECT_TRUE(validate_workload(spec));
}

TEST(ValidateHttp2, NewConnectionPerRequestSendsOneRequestPerConnection) {
  WorkloadSpec spec;
  spec.name = "w";
  spec.protocol = "http2";
  spec.address = "127.0.0.1:80";
  spec.new_connection_per_request = true;
  EXPECT_TRUE(validate_workload(spec));
  spec.http2.streams = 4;
  auto bad = validate_workload(spec);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.message().find("in_flight and http2.streams must be 1"), std::string::npos);
  spec.http2.streams = 1;
  spec.protocol = "wamp_rpc";
  bad = validate_workload(spec);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.message().find("new_connection_per_request applies to http1 and http2 only"),
            std::string::npos);
}

}  // namespace
}  // namespace benchgate::worker
