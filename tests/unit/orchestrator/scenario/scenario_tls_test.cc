// TLS and HTTP/2 keys (docs/SCENARIOS.md, "TLS and HTTP/2") load into the typed model, a relative
// ca_file is read against the scenario's folder, and what cannot run is refused at the key.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include "orchestrator/scenario/scenario_loader.h"
#include "scenario_test_support.h"

namespace benchgate::scenario {
namespace {

using test_support::diagnostics_text;
using test_support::load_hermetic;

TEST(ScenarioTls, Http2WorkloadTakesItsKeysAndDefaultsTheRest) {
  LoadResult r = load_hermetic(
      "name = \"s\"\n[[workloads]]\nname = \"a\"\nprotocol = \"http2\"\nstreams = 16\n"
      "max_frame_size = 32768\n[[workloads]]\nname = \"b\"\nprotocol = \"http2\"\n");
  ASSERT_TRUE(r.ok()) << diagnostics_text(r);
  const Workload& a = r.scenario->workloads.at(0);
  EXPECT_EQ(a.protocol, Protocol::kHttp2);
  EXPECT_STREQ(to_string(a.protocol), "http2");
  EXPECT_TRUE(is_http(a.protocol));
  EXPECT_EQ(a.http2.streams, 16u);
  EXPECT_EQ(a.http2.max_frame_size, 32768u);
  EXPECT_EQ(a.http2.initial_window, 1u << 30);
  EXPECT_FALSE(a.tls.enabled);
  const Workload& b = r.scenario->workloads.at(1);
  EXPECT_EQ(b.http2.streams, 1u);
  EXPECT_EQ(b.http2.max_frame_size, 16384u);
}

TEST(ScenarioTls, TlsKeysAreRead) {
  LoadResult r = load_hermetic(
      "name = \"s\"\n[[workloads]]\nname = \"w\"\ntls = true\ntls_version = \"1.3\"\n"
      "ciphers = \"TLS_AES_128_GCM_SHA256\"\nsni = \"localhost\"\ninsecure = true\n"
      "alpn = [\"http/1.1\"]\n");
  ASSERT_TRUE(r.ok()) << diagnostics_text(r);
  const TlsSettings& tls = r.scenario->workloads.at(0).tls;
  EXPECT_TRUE(tls.enabled);
  EXPECT_EQ(tls.version, "1.3");
  EXPECT_EQ(tls.ciphers, "TLS_AES_128_GCM_SHA256");
  EXPECT_EQ(tls.sni, "localhost");
  EXPECT_TRUE(tls.insecure);
  EXPECT_EQ(tls.alpn, std::vector<std::string>{"http/1.1"});
  EXPECT_TRUE(tls.ca_file.empty());
}

TEST(ScenarioTls, RelativeCaFileIsReadAgainstTheScenarioFolder) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("scenario_tls_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string pem = "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n";
  std::ofstream(dir / "ca.pem") << pem;
  std::ofstream(dir / "not-a-cert.txt") << "hello\n";
  const std::string path = (dir / "s.toml").string();
  LoadResult r = load_hermetic(
      "name = \"s\"\n[[workloads]]\nname = \"w\"\nprotocol = \"http2\"\ntls = true\n"
      "ca_file = \"ca.pem\"\n",
      path);
  ASSERT_TRUE(r.ok()) << diagnostics_text(r);
  EXPECT_EQ(r.scenario->workloads.at(0).tls.ca_file, (dir / "ca.pem").string());
  EXPECT_EQ(r.scenario->workloads.at(0).tls.ca_pem, pem);

  LoadResult bad = load_hermetic(
      "name = \"s\"\n[[workloads]]\nname = \"w\"\ntls = true\nca_file = \"not-a-cert.txt\"\n",
      path);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(diagnostics_text(bad).find(
                "s.toml:5:11: error: key 'ca_file': 'not-a-cert.txt' holds no PEM"),
            std::string::npos)
      << diagnostics_text(bad);
  std::filesystem::remove_all(dir);
}

// One rule for every protocol (alpn_rule): the list offers what the workload speaks, beside
// anything else; RawSocket's own handshake takes any list.
TEST(ScenarioTls, AlpnThatOffersTheWorkloadsProtocolLoads) {
  for (const std::string body : {
           "alpn = [\"h2\", \"http/1.1\"]\n",
           "protocol = \"http2\"\nalpn = [\"http/1.1\", \"h2\"]\n",
           "protocol = \"wamp_rpc\"\nalpn = [\"http/1.1\"]\n",
           "protocol = \"wamp_transfer\"\ntransport = \"rawsocket\"\nalpn = [\"h2\"]\n",
           "protocol = \"wamp_pubsub\"\ntransport = \"rawsocket\"\nalpn = [\"wamp.2.cbor\"]\n",
       }) {
    LoadResult r = load_hermetic("name = \"s\"\n[[workloads]]\nname = \"w\"\ntls = true\n" + body);
    EXPECT_TRUE(r.ok()) << body << diagnostics_text(r);
  }
}

// With [router] tls = true every workload must speak TLS: `tls` in [defaults] says it once, a
// workload's own tls overrides it, and the TLS keys of a workload take it as their tls = true.
// [defaults] refused it ("unknown key"), so each WAMP workload needed its own.
TEST(ScenarioTls, TlsInDefaultsIsEveryWorkloadsUnlessItSetsItsOwn) {
  LoadResult r = load_hermetic(
      "name = \"s\"\n[router]\ntls = true\n[defaults]\ntls = true\n"
      "[[workloads]]\nname = \"rpc\"\nprotocol = \"wamp_rpc\"\n"
      "[[workloads]]\nname = \"pubsub\"\nprotocol = \"wamp_pubsub\"\ntransport = \"rawsocket\"\n"
      "[[workloads]]\nname = \"h2\"\nprotocol = \"http2\"\ntls_version = \"1.3\"\n");
  ASSERT_TRUE(r.ok()) << diagnostics_text(r);
  for (const Workload& w : r.scenario->workloads) EXPECT_TRUE(w.tls.enabled) << w.name;
  EXPECT_EQ(r.scenario->workloads.at(2).tls.version, "1.3");

  r = load_hermetic(
      "name = \"s\"\n[defaults]\ntls = true\n[[workloads]]\nname = \"a\"\n"
      "[[workloads]]\nname = \"b\"\ntls = false\n");
  ASSERT_TRUE(r.ok()) << diagnostics_text(r);
  EXPECT_TRUE(r.scenario->workloads.at(0).tls.enabled);
  EXPECT_FALSE(r.scenario->workloads.at(1).tls.enabled);

  // A workload's tls = false under [router] tls = true is still that workload's error, and a
  // TLS key beside its own tls = false still needs TLS.
  r = load_hermetic(
      "name = \"s\"\n[router]\ntls = true\n[defaults]\ntls = true\n[[workloads]]\nname = \"a\"\n"
      "[[workloads]]\nname = \"b\"\ntls = false\nsni = \"localhost\"\n");
  EXPECT_EQ(diagnostics_text(r),
            "s.toml:10:1: error: workload 'b' needs tls = true: [router] tls = true makes every "
            "port of the bundled router speak TLS\n"
            "s.toml:11:1: error: key 'sni' needs tls = true in the same workload or in "
            "[defaults]\n");

  r = load_hermetic("name = \"s\"\n[defaults]\ntls = \"yes\"\n[[workloads]]\nname = \"a\"\n");
  EXPECT_EQ(diagnostics_text(r),
            "s.toml:3:7: error: key 'tls' must be a boolean (true or false), got string \"yes\"\n");
}

// Under [router] tls = true, a workload without TLS is reported once at the key to change: a
// [defaults] tls = false that ten workloads take is one error at that key (it was one per
// workload, ten times the same), a workload's own tls = false is reported at its key, a swept
// workload once for all its values, and a tls refused for its type only as that (not again by
// the router, nor by a TLS key beside it).
TEST(ScenarioTls, TlsThatTheRouterRefusesIsReportedOnceWhereItIsWritten) {
  std::string workloads;
  for (int i = 0; i < 10; ++i) {
    workloads += "[[workloads]]\nname = \"w" + std::to_string(i) + "\"\nprotocol = \"wamp_rpc\"\n";
  }
  const std::string router = "name = \"s\"\n[router]\ntls = true\n";
  LoadResult r = load_hermetic(router + "[defaults]\ntls = false\n" + workloads);
  EXPECT_EQ(diagnostics_text(r),
            "s.toml:5:1: error: key 'tls' in [defaults] must be true: [router] tls = true makes "
            "every port of the bundled router speak TLS, and 10 workloads take tls from "
            "[defaults]\n");

  // Lines: 6 [[workloads]] a, 9 [[workloads]] b, 11 its tls.
  r = load_hermetic(router +
                    "[defaults]\ntls = false\n[[workloads]]\nname = \"a\"\ntls = true\n"
                    "[[workloads]]\nname = \"b\"\ntls = false\n[[workloads]]\nname = \"c\"\n");
  EXPECT_EQ(diagnostics_text(r),
            "s.toml:5:1: error: key 'tls' in [defaults] must be true: [router] tls = true makes "
            "every port of the bundled router speak TLS, and 1 workload takes tls from "
            "[defaults]\n"
            "s.toml:11:1: error: workload 'b' needs tls = true: [router] tls = true makes every "
            "port of the bundled router speak TLS\n");

  r = load_hermetic(router + "[defaults]\ntls = \"yes\"\n" + workloads +
                    "[[workloads]]\nname = \"own\"\ntls = 1\nsni = \"localhost\"\n");
  EXPECT_EQ(diagnostics_text(r),
            "s.toml:5:7: error: key 'tls' must be a boolean (true or false), got string \"yes\"\n"
            "s.toml:38:7: error: key 'tls' must be a boolean (true or false), got integer 1\n");

  r = load_hermetic(router + "[[workloads]]\nname = \"a\"\nsweep = { connections = [1, 2, 4] }\n");
  EXPECT_EQ(diagnostics_text(r),
            "s.toml:4:1: error: workload 'a' needs tls = true: [router] tls = true makes every "
            "port of the bundled router speak TLS\n");

  // A swept workload that takes [defaults]' tls is one workload as written, not one per value.
  r = load_hermetic(router +
                    "[defaults]\ntls = false\n[[workloads]]\nname = \"a\"\n"
                    "sweep = { connections = [1, 2, 4] }\n[[workloads]]\nname = \"b\"\n");
  EXPECT_EQ(diagnostics_text(r),
            "s.toml:5:1: error: key 'tls' in [defaults] must be true: [router] tls = true makes "
            "every port of the bundled router speak TLS, and 2 workloads take tls from "
            "[defaults]\n");
}

TEST(ScenarioTls, RefusalsPointAtTheKey) {
  struct Case {
    std::string body;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {"streams = 4\n", "s.toml:4:1: error: key 'streams' applies to protocol http2 only"},
      {"protocol = \"http2\"\nin_flight = 2\n", "s.toml:5:1: error: key 'in_flight' is HTTP/1.1's"},
      {"tls = true\ninsecure = true\ntls_version = \"1.1\"\n",
       "s.toml:6:15: error: key 'tls_version' must be \"1.2\" or \"1.3\", got \"1.1\""},
      {"tls = true\ntls_version = \"1.0\"\n",
       "s.toml:5:15: error: key 'tls_version' must be one of"},
      {"alpn = [\"h2\"]\n", "s.toml:4:1: error: key 'alpn' needs tls = true"},
      {"tls = true\nalpn = [\"h2\"]\n",
       "s.toml:5:8: error: key 'alpn': an http1 workload speaks HTTP/1.1 only, so its alpn must "
       "offer \"http/1.1\""},
      {"protocol = \"http2\"\ntls = true\nalpn = [\"http/1.1\"]\n",
       "s.toml:6:8: error: key 'alpn': an http2 workload speaks h2 only, so its alpn must offer "
       "\"h2\" (protocol = \"http1\" speaks HTTP/1.1)"},
      {"protocol = \"wamp_rpc\"\ntls = true\nalpn = [\"h2\"]\n",
       "s.toml:6:8: error: key 'alpn': a WAMP workload over transport = \"websocket\" opens it "
       "with an HTTP/1.1 Upgrade (wss), so its alpn must offer \"http/1.1\""},
      {"protocol = \"wamp_pubsub\"\ntransport = \"websocket\"\ntls = true\nalpn = [\"x\"]\n",
       "s.toml:7:8: error: key 'alpn': a WAMP workload over transport = \"websocket\""},
      {"tls = true\nca_file = \"nope.pem\"\n", "s.toml:5:11: error: key 'ca_file': no such file"},
      {"tls = true\ninsecure = true\nca_file = \"nope.pem\"\n",
       "s.toml:6:1: error: key 'ca_file' and insecure = true contradict each other"},
      {"protocol = \"wamp_rpc\"\nstreams = 2\n",
       "s.toml:5:1: error: key 'streams' applies to protocol http2 only"},
      {"protocol = \"http2\"\nmax_frame_size = 100\n", "s.toml:5:18: error: key 'max_frame_size'"},
      {"tls_resumption = true\n", "s.toml:4:1: error: key 'tls_resumption' needs tls = true"},
      {"tls = true\ntls_resumption = 1\n",
       "s.toml:5:18: error: key 'tls_resumption' must be a boolean"},
      {"in_flight = 4\nnew_connection_per_request = true\n",
       "s.toml:4:1: error: workload 'w': new_connection_per_request sends one request per "
       "connection: in_flight must be 1, got 4"},
      {"protocol = \"http2\"\nstreams = 8\nnew_connection_per_request = true\n",
       "s.toml:5:11: error: workload 'w': new_connection_per_request sends one request per "
       "connection: streams must be 1, got 8"},
      {"protocol = \"wamp_pubsub\"\nnew_connection_per_request = true\n",
       "s.toml:5:1: error: key 'new_connection_per_request' applies to protocols http1 and http2"},
      {"new_connection_per_request = \"yes\"\n",
       "s.toml:4:30: error: key 'new_connection_per_request' must be a boolean"},
  };
  for (const Case& c : cases) {
    LoadResult r = load_hermetic("name = \"s\"\n[[workloads]]\nname = \"w\"\n" + c.body);
    EXPECT_FALSE(r.ok()) << c.body;
    EXPECT_NE(diagnostics_text(r).find(c.expected), std::string::npos)
        << c.body << "\nexpected: " << c.expected << "\ngot:\n"
        << diagnostics_text(r);
  }
}

TEST(ScenarioTls, NewConnectionPerRequestAndResumptionAreRead) {
  LoadResult r = load_hermetic(
      "name = \"s\"\n[[workloads]]\nname = \"w\"\nprotocol = \"http2\"\ntls = true\n"
      "insecure = true\ntls_resumption = true\nnew_connection_per_request = true\n"
      "[[workloads]]\nname = \"kept\"\n"
      "[[workloads]]\nname = \"off\"\ntls = true\ninsecure = true\ntls_resumption = false\n");
  ASSERT_TRUE(r.ok()) << diagnostics_text(r);
  EXPECT_TRUE(r.scenario->workloads.at(0).new_connection_per_request);
  EXPECT_TRUE(r.scenario->workloads.at(0).tls.resumption);
  EXPECT_FALSE(r.scenario->workloads.at(1).new_connection_per_request);
  EXPECT_FALSE(r.scenario->workloads.at(1).tls.resumption);
  EXPECT_FALSE(r.scenario->workloads.at(2).tls.resumption);
}

TEST(ScenarioTls, WampWorkloadsTakeTls) {
  LoadResult r = load_hermetic(
      "name = \"s\"\n[[workloads]]\nname = \"wss\"\nprotocol = \"wamp_rpc\"\ntls = true\n"
      "insecure = true\n[[workloads]]\nname = \"raw\"\nprotocol = \"wamp_pubsub\"\n"
      "transport = \"rawsocket\"\ntls = true\nsni = \"localhost\"\ninsecure = true\n");
  ASSERT_TRUE(r.ok()) << diagnostics_text(r);
  EXPECT_TRUE(r.scenario->workloads.at(0).tls.enabled);
  EXPECT_TRUE(r.scenario->workloads.at(0).tls.insecure);
  EXPECT_EQ(r.scenario->workloads.at(1).tls.sni, "localhost");
}

TEST(ScenarioTls, RouterTlsMakesTheRunsCertificate) {
  LoadResult r = load_hermetic(
      "name = \"s\"\n[router]\ntls = true\n[[workloads]]\nname = \"w\"\ntls = true\n");
  ASSERT_TRUE(r.ok()) << diagnostics_text(r);
  EXPECT_TRUE(r.scenario->router.tls);
  EXPECT_TRUE(r.scenario->router.tls_cert.empty());
  EXPECT_TRUE(r.scenario->router.tls_key.empty());
}

TEST(ScenarioTls, RouterCertificateFilesAreReadAgainstTheScenariosFolder) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("router_tls_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "c.pem") << "x";
  std::ofstream(dir / "k.pem") << "x";
  LoadResult r = load_hermetic(
      "name = \"s\"\n[router]\ntls = true\ntls_cert = \"c.pem\"\ntls_key = \"k.pem\"\n"
      "[[workloads]]\nname = \"w\"\ntls = true\n",
      (dir / "s.toml").string());
  ASSERT_TRUE(r.ok()) << diagnostics_text(r);
  EXPECT_EQ(r.scenario->router.tls_cert, (dir / "c.pem").string());
  EXPECT_EQ(r.scenario->router.tls_key, (dir / "k.pem").string());
  std::filesystem::remove_all(dir);
}

TEST(ScenarioTls, RouterTlsMistakesAreRefusedAtTheKey) {
  struct Case {
    std::string router;
    std::string workload;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {"tls = true\ntls_cert = \"/no/such/c.pem\"\ntls_key = \"/no/such/k.pem\"\n", "tls = true\n",
       "s.toml:4:12: error: key 'tls_cert': no such file '/no/such/c.pem'"},
      {"tls = true\ntls_cert = \"/etc/hostname\"\n", "tls = true\n",
       "s.toml:4:1: error: key 'tls_cert' needs key 'tls_key' in [router]"},
      {"tls_key = \"/etc/hostname\"\ntls_cert = \"/etc/hostname\"\n", "tls = true\n",
       "s.toml:3:1: error: key 'tls_key' needs tls = true in [router]"},
      {"tls = true\n", "",
       "s.toml:4:1: error: workload 'w' needs tls = true: [router] tls = true makes every port"},
      {"impl = \"external\"\naddress = \"127.0.0.1:9\"\ntls = true\n", "tls = true\n",
       "s.toml:5:1: error: key 'tls' in [router] applies only to impl = \"builtin\""},
  };
  for (const Case& c : cases) {
    LoadResult r = load_hermetic("name = \"s\"\n[router]\n" + c.router +
                                 "[[workloads]]\nname = \"w\"\n" + c.workload);
    EXPECT_FALSE(r.ok()) << c.router;
    EXPECT_NE(diagnostics_text(r).find(c.expected), std::string::npos)
        << c.router << "\nexpected: " << c.expected << "\ngot:\n"
        << diagnostics_text(r);
  }
}

}  // namespace
}  // namespace benchgate::scenario
