// WAMP workloads (wamp_rpc, wamp_pubsub) load into the typed model with their defaults, and
// combinations that cannot run are refused at the key to change.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "common/wamp/message_limits.h"
#include "common/wamp/uri.h"
#include "orchestrator/scenario/scenario_loader.h"
#include "scenario_test_support.h"

namespace benchgate::scenario {
namespace {

using test_support::diagnostics_text;
using test_support::load_hermetic;

TEST(ScenarioWamp, RpcWorkloadTakesTheWrittenValuesAndDefaultsTheRest) {
  LoadResult r = load_hermetic(
      "name = \"s\"\n[[workloads]]\nname = \"w\"\nprotocol = \"wamp_rpc\"\n"
      "transport = \"rawsocket\"\nserializer = \"cbor\"\nrequest_bytes = \"1KiB\"\n"
      "connections = 8\nin_flight = 4\n");
  ASSERT_TRUE(r.ok()) << diagnostics_text(r);
  const Workload& w = r.scenario->workloads.at(0);
  EXPECT_EQ(w.protocol, Protocol::kWampRpc);
  EXPECT_STREQ(to_string(w.protocol), "wamp_rpc");
  EXPECT_EQ(w.wamp.transport, "rawsocket");
  EXPECT_EQ(w.wamp.serializer, "cbor");
  EXPECT_EQ(w.wamp.realm, "realm1");
  EXPECT_EQ(w.wamp.procedure, "bench.echo");
  EXPECT_EQ(w.wamp.callee, "router");
  EXPECT_EQ(w.wamp.request_bytes, 1024u);
  EXPECT_EQ(w.connections, 8u);
  EXPECT_EQ(w.in_flight, 4u);
}

TEST(ScenarioWamp, WorkerCalleeGetsAProcedureTheRouterLetsItRegister) {
  LoadResult r = load_hermetic(
      "name = \"s\"\n[[workloads]]\nname = \"w\"\nprotocol = \"wamp_rpc\"\n"
      "callee = \"worker\"\n");
  ASSERT_TRUE(r.ok()) << diagnostics_text(r);
  EXPECT_EQ(r.scenario->workloads.at(0).wamp.procedure, "bench.worker.echo");
}

// The router registers no procedure under "wamp." (router/README.md) and serves bench.echo
// itself: a worker callee's procedure of either kind is refused where it is written (before:
// "wamp.my.proc" was accepted, and every callee's REGISTER failed when the run started). A call
// to the router's own wamp. procedures is no registration.
TEST(ScenarioWamp, WorkerCalleeRefusesAProcedureTheRouterWillNotRegister) {
  const std::string head = "name = \"s\"\n[[workloads]]\nname = \"w\"\nprotocol = \"wamp_rpc\"\n";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"callee = \"worker\"\nprocedure = \"wamp.my.proc\"\n",
       "s.toml:6:13: error: callee = \"worker\" needs a procedure outside wamp.: the router "
       "refuses to register URIs under wamp. (wamp.error.invalid_uri), got \"wamp.my.proc\""},
      {"callee = \"worker\"\nprocedure = \"bench.echo\"\n",
       "s.toml:6:13: error: callee = \"worker\" needs a procedure other than bench.echo"},
  };
  for (const auto& [text, expected] : cases) {
    LoadResult r = load_hermetic(head + text);
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_NE(diagnostics_text(r).find(expected), std::string::npos) << text << diagnostics_text(r);
  }
  LoadResult r = load_hermetic(head + "procedure = \"wamp.session.count\"\n");
  EXPECT_TRUE(r.ok()) << diagnostics_text(r);
}

TEST(ScenarioWamp, PubSubWorkloadNeedsNoConnectionsForItsThreads) {
  LoadResult r = load_hermetic(
      "name = \"s\"\n[defaults]\nthreads = 2\n[[workloads]]\nname = \"w\"\n"
      "protocol = \"wamp_pubsub\"\ntopic = \"bench.fanout\"\npublishers = 2\n"
      "subscribers = 8\nrate = 2000\n");
  ASSERT_TRUE(r.ok()) << diagnostics_text(r);
  const Workload& w = r.scenario->workloads.at(0);
  EXPECT_EQ(w.protocol, Protocol::kWampPubSub);
  EXPECT_EQ(w.wamp.topic, "bench.fanout");
  EXPECT_EQ(w.wamp.publishers, 2u);
  EXPECT_EQ(w.wamp.subscribers, 8u);
  EXPECT_EQ(w.rate, 2000);
}

// wamp_pubsub's sessions are its publishers and subscribers: `connections` would be ignored,
// so it is refused, at the key and in a sweep alike.
TEST(ScenarioWamp, PubSubRefusesConnectionsAsAKeyAndAsASweep) {
  LoadResult r = load_hermetic(
      "name = \"s\"\n[[workloads]]\nname = \"w\"\nprotocol = \"wamp_pubsub\"\n"
      "connections = 4\n");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(diagnostics_text(r),
            "s.toml:5:1: error: key 'connections' (4) does not apply to wamp_pubsub: its "
            "sessions are publishers and subscribers\n");
  r = load_hermetic(
      "name = \"s\"\n[[workloads]]\nname = \"w\"\nprotocol = \"wamp_pubsub\"\n"
      "sweep = { connections = [1, 50] }\n");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(diagnostics_text(r),
            "s.toml:5:11: error: sweep parameter 'connections' does not apply to wamp_pubsub: "
            "its sessions are publishers and subscribers: workload 'w' is wamp_pubsub\n");
  // A [defaults] value is for the workloads that take it.
  r = load_hermetic(
      "name = \"s\"\n[defaults]\nconnections = 4\n[[workloads]]\nname = \"w\"\n"
      "protocol = \"wamp_pubsub\"\n");
  EXPECT_TRUE(r.ok()) << diagnostics_text(r);
}

// wamp_transfer's sizes are transfer_bytes and chunk_bytes: a swept request_bytes is refused
// as the plain key is.
TEST(ScenarioWamp, TransferRefusesASweptRequestBytesAsThePlainKey) {
  LoadResult r = load_hermetic(
      "name = \"s\"\n[[workloads]]\nname = \"w\"\nprotocol = \"wamp_transfer\"\n"
      "sweep = { request_bytes = [1, 1000] }\n");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(diagnostics_text(r),
            "s.toml:5:11: error: sweep parameter 'request_bytes' applies to the protocols other "
            "than wamp_transfer only (a transfer's sizes are transfer_bytes and chunk_bytes): "
            "workload 'w' is wamp_transfer\n");
  // Its connections are sessions, one transfer at a time each: they may be swept.
  r = load_hermetic(
      "name = \"s\"\n[[workloads]]\nname = \"w\"\nprotocol = \"wamp_transfer\"\n"
      "sweep = { connections = [1, 2] }\n");
  ASSERT_TRUE(r.ok()) << diagnostics_text(r);
  EXPECT_EQ(r.scenario->workloads.size(), 2u);
}

// The loader's URI rule is the bundled router's (common/wamp/uri.h): a realm, procedure or topic
// the router accepts loads, one it refuses is refused at the value. Control characters other than
// whitespace, and DEL, are URI characters to the router; the loader's own rule refused them.
TEST(ScenarioWamp, UrisFollowTheRoutersRule) {
  struct Case {
    std::string toml;   // as written in the TOML string
    std::string bytes;  // as the loader reads it
    bool valid;
  };
  const std::vector<Case> cases = {
      {"bench.echo", "bench.echo", true},
      {"a_b-c.d", "a_b-c.d", true},
      {"bench.\\u00e9t\\u00e9", "bench.\xc3\xa9t\xc3\xa9", true},
      {"a\\u0001b",
       "a\x01"
       "b",
       true},
      {"a\\u001fb",
       "a\x1f"
       "b",
       true},
      {"a\\u007fb",
       "a\x7f"
       "b",
       true},
      {"", "", false},
      {".a", ".a", false},
      {"a.", "a.", false},
      {"a..b", "a..b", false},
      {"a b", "a b", false},
      {"a\\tb", "a\tb", false},
      {"a\\nb", "a\nb", false},
      {"a\\rb", "a\rb", false},
      {"a\\fb", "a\fb", false},
      {"a\\u000bb", "a\vb", false},
      {"a#b", "a#b", false},
  };
  for (const Case& c : cases) {
    ASSERT_EQ(wamp::is_valid_uri(c.bytes), c.valid) << c.toml;
    for (const std::string key : {"realm", "procedure"}) {
      const std::string line = key + " = \"" + c.toml + "\"";
      LoadResult r = load_hermetic(
          "name = \"s\"\n[[workloads]]\nname = \"w\"\nprotocol = \"wamp_rpc\"\n" + line + "\n");
      EXPECT_EQ(r.ok(), c.valid) << line << "\n" << diagnostics_text(r);
      if (!c.valid) {
        EXPECT_NE(diagnostics_text(r).find("s.toml:5:" + std::to_string(key.size() + 4) +
                                           ": error: key '" + key + "' must be a WAMP URI"),
                  std::string::npos)
            << line << "\n"
            << diagnostics_text(r);
      }
    }
  }
  LoadResult topic = load_hermetic(
      "name = \"s\"\n[[workloads]]\nname = \"w\"\nprotocol = \"wamp_pubsub\"\n"
      "topic = \"bench.\\u0001\"\n");
  EXPECT_TRUE(topic.ok()) << diagnostics_text(topic);
}

// Names a transport or serializer goes by elsewhere are no typo of the loader's, so edit
// distance alone suggested nothing for them; a name in other case is the name.
TEST(ScenarioWamp, OtherNamesOfTransportsAndSerializersSuggestTheRightOne) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"transport = \"wss\"",
       "s.toml:5:13: error: key 'transport' must be one of websocket or rawsocket, got 'wss' (did "
       "you mean transport = \"websocket\" with tls = true?)\n"},
      {"transport = \"WSS\"",
       "s.toml:5:13: error: key 'transport' must be one of websocket or rawsocket, got 'WSS' (did "
       "you mean transport = \"websocket\" with tls = true?)\n"},
      {"transport = \"ws\"",
       "s.toml:5:13: error: key 'transport' must be one of websocket or rawsocket, got 'ws' (did "
       "you mean 'websocket'?)\n"},
      {"transport = \"raw\"",
       "s.toml:5:13: error: key 'transport' must be one of websocket or rawsocket, got 'raw' (did "
       "you mean 'rawsocket'?)\n"},
      {"transport = \"RawSocket\"",
       "s.toml:5:13: error: key 'transport' must be one of websocket or rawsocket, got "
       "'RawSocket' (did you mean 'rawsocket'?)\n"},
      {"serializer = \"MessagePack\"",
       "s.toml:5:14: error: key 'serializer' must be one of json, msgpack or cbor, got "
       "'MessagePack' (did you mean 'msgpack'?)\n"},
      {"serializer = \"messagepack\"",
       "s.toml:5:14: error: key 'serializer' must be one of json, msgpack or cbor, got "
       "'messagepack' (did you mean 'msgpack'?)\n"},
      {"serializer = \"JSON\"",
       "s.toml:5:14: error: key 'serializer' must be one of json, msgpack or cbor, got 'JSON' "
       "(did you mean 'json'?)\n"},
  };
  for (const auto& [line, expected] : cases) {
    LoadResult r = load_hermetic(
        "name = \"s\"\n[[workloads]]\nname = \"w\"\nprotocol = \"wamp_rpc\"\n" + line + "\n");
    EXPECT_EQ(diagnostics_text(r), expected) << line;
  }
}

TEST(ScenarioWamp, JsonPayloadThatOnlyFitsRawSocketUnencodedIsRefusedAtTheValue) {
  LoadResult r = load_hermetic(
      "name = \"s\"\n[[workloads]]\nname = \"w\"\nprotocol = \"wamp_rpc\"\n"
      "transport = \"rawsocket\"\nrequest_bytes = \"15MiB\"\n");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(diagnostics_text(r),
            "s.toml:6:17: error: key 'request_bytes' must fit one RawSocket message (16 MiB - 1 "
            "bytes, and json carries them as base64), got \"15MiB\" (15728640 bytes); use "
            "transport = \"websocket\" for larger payloads\n");
}

TEST(ScenarioWamp, JsonPayloadOverTheRoutersWebSocketLimitIsRefusedAtTheValue) {
  // 64 MiB as base64 is 85.3 MiB, over the bundled router's default 65 MiB message limit.
  LoadResult r = load_hermetic(
      "name = \"s\"\n[[workloads]]\nname = \"w\"\nprotocol = \"wamp_rpc\"\n"
      "transport = \"websocket\"\nrequest_bytes = \"64MiB\"\n");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(diagnostics_text(r),
            "s.toml:6:17: error: key 'request_bytes' must fit one WebSocket message of the "
            "bundled router (its --max-message-bytes default, 65 MiB, and json carries them as "
            "base64), got \"64MiB\" (67108864 bytes); use serializer = \"msgpack\" or \"cbor\" "
            "for larger payloads\n");
}

// A size over a limit is quoted as written, with the bytes it comes to, at every size key: the
// bytes alone ("got 68157440") left the reader to convert them back. An integer stays as written.
TEST(ScenarioWamp, SizesOverALimitAreQuotedAsWritten) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"protocol = \"wamp_rpc\"\nserializer = \"msgpack\"\nrequest_bytes = \"65MiB\"\n",
       "s.toml:6:17: error: key 'request_bytes' must be at most 64MiB for WAMP, got \"65MiB\" "
       "(68157440 bytes)\n"},
      {"protocol = \"wamp_rpc\"\nserializer = \"msgpack\"\nrequest_bytes = 68157440\n",
       "s.toml:6:17: error: key 'request_bytes' must be at most 64MiB for WAMP, got 68157440\n"},
      {"protocol = \"wamp_rpc\"\nfragment_bytes = \"17MiB\"\n",
       "s.toml:5:18: error: key 'fragment_bytes' must be 0 (off) or from 16 bytes to 16MiB, got "
       "\"17MiB\" (17825792 bytes)\n"},
      {"protocol = \"wamp_rpc\"\nserializer = \"msgpack\"\n"
       "sweep = { request_bytes = [1, \"65MiB\"] }\n",
       "s.toml:6:31: error: sweep value must be at most 64MiB for WAMP, got \"65MiB\" (68157440 "
       "bytes)\n"},
  };
  for (const auto& [body, expected] : cases) {
    LoadResult r = load_hermetic("name = \"s\"\n[[workloads]]\nname = \"w\"\n" + body);
    EXPECT_EQ(diagnostics_text(r), expected) << body;
  }
}

TEST(ScenarioWamp, WebSocketPayloadsUpToTheRoutersLimitLoad) {
  // The largest JSON payload whose base64 fits 65 MiB less the envelope, and 64 MiB binary.
  const uint64_t json_max = (wamp_limits::kRouterDefaultMaxMessageBytes - 512) / 4 * 3;
  for (const std::string& payload :
       {"serializer = \"json\"\nrequest_bytes = " + std::to_string(json_max),
        std::string("serializer = \"msgpack\"\nrequest_bytes = \"64MiB\""),
        std::string("serializer = \"cbor\"\nrequest_bytes = \"64MiB\"")}) {
    LoadResult r = load_hermetic(
        "name = \"s\"\n[[workloads]]\nname = \"w\"\nprotocol = \"wamp_rpc\"\n" + payload + "\n");
    EXPECT_TRUE(r.ok()) << payload << "\n" << diagnostics_text(r);
  }
  LoadResult over = load_hermetic(
      "name = \"s\"\n[[workloads]]\nname = \"w\"\nprotocol = \"wamp_rpc\"\nrequest_bytes = " +
      std::to_string(json_max + 3) + "\n");
  EXPECT_FALSE(over.ok());
}

TEST(ScenarioWamp, SweepOverRequestBytesSetsTheWampPayload) {
  LoadResult r = load_hermetic(
      "name = \"s\"\n[[workloads]]\nname = \"w\"\nprotocol = \"wamp_rpc\"\n"
      "sweep = { request_bytes = [64, \"1KiB\"] }\n");
  ASSERT_TRUE(r.ok()) << diagnostics_text(r);
  ASSERT_EQ(r.scenario->workloads.size(), 2u);
  EXPECT_EQ(r.scenario->workloads[1].name, "w@request_bytes=1024");
  EXPECT_EQ(r.scenario->workloads[1].wamp.request_bytes, 1024u);
  EXPECT_EQ(r.scenario->workloads[1].http.request_bytes, 0u);
}

TEST(ScenarioWamp, SweepValueTooLargeForRawSocketIsRefusedAtTheValue) {
  LoadResult r = load_hermetic(
      "name = \"s\"\n[[workloads]]\nname = \"w\"\nprotocol = \"wamp_rpc\"\n"
      "transport = \"rawsocket\"\nserializer = \"msgpack\"\n"
      "sweep = { request_bytes = [64, \"32MiB\"] }\n");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(diagnostics_text(r),
            "s.toml:7:32: error: sweep value must fit one RawSocket message (16 MiB - 1 bytes), "
            "got \"32MiB\" (33554432 bytes); use transport = \"websocket\" for larger "
            "payloads\n");
}

TEST(ScenarioWamp, FragmentBytesIsAWebSocketFrameSizeWithinBounds) {
  LoadResult r = load_hermetic(
      "name = \"s\"\n[router]\nws_fragment_bytes = \"4KiB\"\n[[workloads]]\nname = \"w\"\n"
      "protocol = \"wamp_rpc\"\nfragment_bytes = \"4KiB\"\n");
  ASSERT_TRUE(r.ok()) << diagnostics_text(r);
  EXPECT_EQ(r.scenario->workloads.at(0).wamp.fragment_bytes, 4096u);
  EXPECT_EQ(r.scenario->router.ws_fragment_bytes, 4096u);

  r = load_hermetic(
      "name = \"s\"\n[[workloads]]\nname = \"w\"\nprotocol = \"wamp_rpc\"\n"
      "transport = \"rawsocket\"\nfragment_bytes = 4096\n");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(diagnostics_text(r),
            "s.toml:6:18: error: key 'fragment_bytes' applies to transport = \"websocket\" only "
            "(RawSocket has no fragmentation), got transport = \"rawsocket\"\n");

  r = load_hermetic(
      "name = \"s\"\n[[workloads]]\nname = \"w\"\nprotocol = \"wamp_rpc\"\n"
      "fragment_bytes = 8\n");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(diagnostics_text(r),
            "s.toml:5:18: error: key 'fragment_bytes' must be 0 (off) or from 16 bytes to 16MiB, "
            "got 8\n");

  r = load_hermetic(
      "name = \"s\"\n[router]\nws_fragment_bytes = \"32MiB\"\n[[workloads]]\nname = \"w\"\n"
      "protocol = \"wamp_rpc\"\n");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(diagnostics_text(r),
            "s.toml:3:21: error: key 'ws_fragment_bytes' must be 0 (off) or from 16 bytes to "
            "16MiB, got \"32MiB\" (33554432 bytes)\n");
}

TEST(ScenarioWamp, TransferTakesItsSizesAndDefaultsTheRest) {
  LoadResult r = load_hermetic(
      "name = \"s\"\n[[workloads]]\nname = \"w\"\nprotocol = \"wamp_transfer\"\n"
      "serializer = \"cbor\"\n");
  ASSERT_TRUE(r.ok()) << diagnostics_text(r);
  const Workload& w = r.scenario->workloads.at(0);
  EXPECT_EQ(w.protocol, Protocol::kWampTransfer);
  EXPECT_STREQ(to_string(w.protocol), "wamp_transfer");
  EXPECT_EQ(w.wamp.procedure, "bench.transfer");
  EXPECT_EQ(w.wamp.transfer_bytes, uint64_t{64} << 20);
  EXPECT_EQ(w.wamp.chunk_bytes, uint64_t{4} << 20);

  r = load_hermetic(
      "name = \"s\"\n[[workloads]]\nname = \"w\"\nprotocol = \"wamp_transfer\"\n"
      "transfer_bytes = \"1MiB\"\nchunk_bytes = 1000\n");
  ASSERT_TRUE(r.ok()) << diagnostics_text(r);
  EXPECT_EQ(r.scenario->workloads.at(0).wamp.transfer_bytes, uint64_t{1} << 20);
  EXPECT_EQ(r.scenario->workloads.at(0).wamp.chunk_bytes, 1000u);
  // Other WAMP workloads have no transfer sizes.
  r = load_hermetic("name = \"s\"\n[[workloads]]\nname = \"w\"\nprotocol = \"wamp_rpc\"\n");
  ASSERT_TRUE(r.ok()) << diagnostics_text(r);
  EXPECT_EQ(r.scenario->workloads.at(0).wamp.transfer_bytes, 0u);
}

TEST(ScenarioWamp, TransferSizesOutsideTheirBoundsAreRefusedAtTheKey) {
  LoadResult r = load_hermetic(
      "name = \"s\"\n[[workloads]]\nname = \"w\"\nprotocol = \"wamp_transfer\"\n"
      "transfer_bytes = \"1MiB\"\nchunk_bytes = \"2MiB\"\n");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(diagnostics_text(r),
            "s.toml:6:15: error: key 'chunk_bytes' (\"2MiB\" (2097152 bytes)) must be at most "
            "transfer_bytes (\"1MiB\" (1048576 bytes))\n");
  // The default chunk (4 MiB) is larger than a 1 MiB transfer: blamed at transfer_bytes.
  r = load_hermetic(
      "name = \"s\"\n[[workloads]]\nname = \"w\"\nprotocol = \"wamp_transfer\"\n"
      "transfer_bytes = \"1MiB\"\n");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(diagnostics_text(r),
            "s.toml:5:18: error: key 'chunk_bytes' (4194304) must be at most transfer_bytes "
            "(\"1MiB\" (1048576 bytes))\n");
  r = load_hermetic(
      "name = \"s\"\n[[workloads]]\nname = \"w\"\nprotocol = \"wamp_transfer\"\n"
      "transfer_bytes = \"32GiB\"\n");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(diagnostics_text(r),
            "s.toml:5:18: error: key 'transfer_bytes' must be from 1 byte to 16GiB, got "
            "\"32GiB\" (34359738368 bytes)\n");
  // A chunk is one message: over RawSocket it must fit one frame (json: as base64).
  r = load_hermetic(
      "name = \"s\"\n[[workloads]]\nname = \"w\"\nprotocol = \"wamp_transfer\"\n"
      "transport = \"rawsocket\"\nchunk_bytes = \"16MiB\"\n");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(
      diagnostics_text(r).find("s.toml:6:15: error: key 'chunk_bytes' must fit one RawSocket "
                               "message (16 MiB - 1 bytes, and json carries them as base64), got "
                               "\"16MiB\" (16777216 bytes)"),
      std::string::npos)
      << diagnostics_text(r);
  // One transfer at a time per session, closed loop; request_bytes does not apply.
  r = load_hermetic(
      "name = \"s\"\n[[workloads]]\nname = \"w\"\nprotocol = \"wamp_transfer\"\n"
      "in_flight = 2\n");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(
      diagnostics_text(r).find("s.toml:5:1: error: workload 'w': wamp_transfer runs one transfer "
                               "at a time per session, closed loop: in_flight must be 1"),
      std::string::npos)
      << diagnostics_text(r);
  r = load_hermetic(
      "name = \"s\"\n[[workloads]]\nname = \"w\"\nprotocol = \"wamp_transfer\"\n"
      "request_bytes = 10\n");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(diagnostics_text(r).find("s.toml:5:1: error: key 'request_bytes' (10) applies to the "
                                     "protocols other than wamp_transfer only"),
            std::string::npos)
      << diagnostics_text(r);
  // And the transfer keys belong to wamp_transfer only.
  r = load_hermetic(
      "name = \"s\"\n[[workloads]]\nname = \"w\"\nprotocol = \"wamp_rpc\"\n"
      "chunk_bytes = 10\n");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(diagnostics_text(r).find("s.toml:5:1: error: key 'chunk_bytes' applies to protocol "
                                     "wamp_transfer only"),
            std::string::npos)
      << diagnostics_text(r);
}

TEST(ScenarioWamp, SessionPerOperationIsARpcKeyOfTheClosedLoopWithOneCallInFlight) {
  LoadResult r = load_hermetic(
      "name = \"s\"\n[[workloads]]\nname = \"w\"\nprotocol = \"wamp_rpc\"\n"
      "session_per_operation = true\n");
  ASSERT_TRUE(r.ok()) << diagnostics_text(r);
  EXPECT_TRUE(r.scenario->workloads.at(0).wamp.session_per_operation);
  r = load_hermetic(
      "name = \"s\"\n[[workloads]]\nname = \"w\"\nprotocol = \"wamp_rpc\"\n"
      "session_per_operation = true\nin_flight = 4\n");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(
      diagnostics_text(r).find("s.toml:6:1: error: workload 'w': session_per_operation makes every "
                               "call on a session of its own, closed loop: in_flight must be 1"),
      std::string::npos)
      << diagnostics_text(r);
  // Refused, never dropped, where it does not apply (a transfer is a session of its own).
  for (const char* protocol : {"wamp_pubsub", "wamp_transfer"}) {
    r = load_hermetic(std::string("name = \"s\"\n[[workloads]]\nname = \"w\"\nprotocol = \"") +
                      protocol + "\"\nsession_per_operation = true\n");
    ASSERT_FALSE(r.ok()) << protocol;
    EXPECT_NE(diagnostics_text(r).find("s.toml:5:1: error: key 'session_per_operation' applies to "
                                       "protocol wamp_rpc only"),
              std::string::npos)
        << diagnostics_text(r);
  }
}

TEST(ScenarioWamp, SharedRegistrationsTimeoutsAndCancellationTakeTheirValues) {
  LoadResult r = load_hermetic(
      "name = \"s\"\n[[workloads]]\nname = \"w\"\nprotocol = \"wamp_rpc\"\n"
      "callee = \"worker\"\ncallee_sessions = 3\ninvoke = \"roundrobin\"\n"
      "callee_delay = \"20ms\"\ncall_timeout = \"5ms\"\ncancel_after = \"2ms\"\n"
      "cancel_mode = \"skip\"\n");
  ASSERT_TRUE(r.ok()) << diagnostics_text(r);
  const WampRequest& w = r.scenario->workloads.at(0).wamp;
  EXPECT_EQ(w.callee_sessions, 3u);
  EXPECT_EQ(w.invoke, "roundrobin");
  EXPECT_EQ(w.callee_delay_ns, 20'000'000);
  EXPECT_EQ(w.call_timeout_ns, 5'000'000);
  EXPECT_EQ(w.cancel_after_ns, 2'000'000);
  EXPECT_EQ(w.cancel_mode, "skip");
  // The defaults: one callee, a single registration, no delay, timeout or cancel.
  r = load_hermetic("name = \"s\"\n[[workloads]]\nname = \"w\"\nprotocol = \"wamp_rpc\"\n");
  ASSERT_TRUE(r.ok()) << diagnostics_text(r);
  const WampRequest& d = r.scenario->workloads.at(0).wamp;
  EXPECT_EQ(d.callee_sessions, 1u);
  EXPECT_EQ(d.invoke, "single");
  EXPECT_EQ(d.callee_delay_ns, 0);
  EXPECT_EQ(d.call_timeout_ns, 0);
  EXPECT_EQ(d.cancel_after_ns, 0);
}

// Each refusal names file:line:column and the key.
TEST(ScenarioWamp, SharedRegistrationsTimeoutsAndCancellationRefuseWhatCannotRun) {
  const std::string head = "name = \"s\"\n[[workloads]]\nname = \"w\"\nprotocol = \"wamp_rpc\"\n";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"callee = \"worker\"\ninvoke = \"everyone\"\n",
       "s.toml:6:10: error: key 'invoke' must be one of"},
      {"callee = \"worker\"\ncallee_sessions = 3\n",
       "s.toml:6:19: error: key 'callee_sessions' = 3 needs a shared registration"},
      {"callee = \"worker\"\ncallee_sessions = 0\n", "s.toml:6:19: error: key 'callee_sessions'"},
      {"callee = \"worker\"\ncallee_sessions = 2000\ninvoke = \"random\"\n",
       "s.toml:6:19: error: key 'callee_sessions' must be from 1 to 1024, got 2000"},
      {"invoke = \"roundrobin\"\n",
       "s.toml:5:1: error: key 'invoke' applies to callee = \"worker\" only"},
      {"callee_delay = \"20ms\"\n",
       "s.toml:5:1: error: key 'callee_delay' applies to callee = \"worker\" only"},
      {"callee = \"worker\"\ncallee_delay = \"0s\"\n",
       "s.toml:6:16: error: key 'callee_delay' must be more than zero"},
      {"callee = \"worker\"\ncallee_delay = \"-5ms\"\n", "s.toml:6:16: error: key 'callee_delay'"},
      {"callee = \"worker\"\ncallee_delay = \"2m\"\n",
       "s.toml:6:16: error: key 'callee_delay' must be at most 60s"},
      {"call_timeout = \"1500us\"\n",
       "s.toml:5:16: error: key 'call_timeout' must be a whole number of milliseconds"},
      {"call_timeout = \"0ms\"\n", "s.toml:5:16: error: key 'call_timeout' must be more than zero"},
      {"cancel_after = \"0s\"\n", "s.toml:5:16: error: key 'cancel_after' must be more than zero"},
      {"cancel_mode = \"kill\"\n", "s.toml:5:1: error: key 'cancel_mode' needs cancel_after"},
      {"cancel_after = \"2ms\"\ncancel_mode = \"later\"\n",
       "s.toml:6:15: error: key 'cancel_mode' must be one of"},
      {"session_per_operation = true\ncancel_after = \"2ms\"\n",
       "s.toml:6:1: error: key 'cancel_after' does not apply with session_per_operation"},
      {"session_per_operation = true\ncall_timeout = \"2ms\"\n",
       "s.toml:6:1: error: key 'call_timeout' does not apply with session_per_operation"},
  };
  for (const auto& [text, expected] : cases) {
    LoadResult r = load_hermetic(head + text);
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_NE(diagnostics_text(r).find(expected), std::string::npos) << text << diagnostics_text(r);
  }
  // On the other protocols.
  LoadResult r = load_hermetic(
      "name = \"s\"\n[[workloads]]\nname = \"w\"\nprotocol = \"wamp_pubsub\"\n"
      "call_timeout = \"5ms\"\n");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(
      diagnostics_text(r).find("s.toml:5:1: error: key 'call_timeout' applies to protocol wamp_rpc "
                               "only"),
      std::string::npos)
      << diagnostics_text(r);
  r = load_hermetic(
      "name = \"s\"\n[[workloads]]\nname = \"w\"\nprotocol = \"wamp_transfer\"\n"
      "cancel_after = \"5ms\"\n");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(
      diagnostics_text(r).find("s.toml:5:1: error: key 'cancel_after' applies to protocol wamp_rpc "
                               "only"),
      std::string::npos)
      << diagnostics_text(r);
  r = load_hermetic("name = \"s\"\n[[workloads]]\nname = \"w\"\ninvoke = \"random\"\n");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(
      diagnostics_text(r).find("s.toml:4:1: error: key 'invoke' applies to the WAMP protocols"),
      std::string::npos)
      << diagnostics_text(r);
}

TEST(ScenarioWamp, BundledScenariosLoad) {
  for (const char* name : {"wamp.toml", "wamp_large.toml", "wamp_fragmentation.toml",
                           "wamp_transfer.toml", "wamp_transfer_tls.toml", "wamp_shared.toml"}) {
    LoadResult r = load_scenario_file(std::string(BENCHGATE_SOURCE_DIR) + "/scenarios/" + name);
    EXPECT_TRUE(r.ok()) << name << "\n" << diagnostics_text(r);
  }
}

}  // namespace
}  // namespace benchgate::scenario
