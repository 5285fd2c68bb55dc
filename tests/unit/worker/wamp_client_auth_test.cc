// The worker's side of WAMP authentication (worker/wamp/auth/client_auth) against the
// router's (router/wamp/auth/handshake), message for message, for every method; a wrong
// secret is refused, and a WAMP-SCRAM verifier that is not the router's is caught.
#include <gtest/gtest.h>

#include "router/wamp/auth/auth_config.h"
#include "router/wamp/auth/handshake.h"
#include "worker/wamp/auth/client_auth.h"

namespace benchgate::worker::wamp {
namespace {
namespace rauth = benchgate::router::wamp::auth;

constexpr const char* kSeed = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60";

const rauth::AuthConfig& config() {
  static const auto parsed = rauth::parse_auth_config(R"([[realm]]
name = "bench"
[[realm.role]]
name = "r"
permissions = [{ prefix = "bench.", allow = ["call"] }]
[[realm.principal]]
authid = "t"
role = "r"
method = "ticket"
secret = "ticket-1"
[[realm.principal]]
authid = "c"
role = "r"
method = "wampcra"
secret = "cra"
salt = "salt"
iterations = 10
keylen = 16
[[realm.principal]]
authid = "s"
role = "r"
method = "wamp-scram"
secret = "pw"
salt = "c2FsdHNhbHQ="
iterations = 16
[[realm.principal]]
authid = "a"
role = "r"
method = "wamp-scram"
kdf = "argon2id13"
secret = "pw"
salt = "c2FsdHNhbHQ="
iterations = 1
memory = 64
[[realm.principal]]
authid = "k"
role = "r"
method = "cryptosign"
pubkey = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"
)",
                                                      "auth.toml");
  EXPECT_TRUE(parsed.ok()) << (parsed.ok() ? "" : parsed.message());
  return **parsed;
}

// Runs HELLO -> CHALLENGE -> AUTHENTICATE; the router's last step.
rauth::Step login(ClientAuth& client, rauth::Handshake& router) {
  nlohmann::json details = {{"roles", {{"caller", nlohmann::json::object()}}}};
  client.add_to_hello(details);
  rauth::Step step = router.hello("bench", details, 99);
  if (step.kind != rauth::Step::Kind::challenge) return step;
  const auto reply = client.answer(step.message);
  EXPECT_TRUE(reply.has_value()) << step.message.dump();
  if (!reply) return step;
  EXPECT_EQ((*reply)[0], 5);
  return router.authenticate((*reply)[1], (*reply)[2]);
}

TEST(WampClientAuth, EveryMethodIsWelcomedByTheRouter) {
  const std::vector<WampRequestSpec::Auth> cases = {{"ticket", "t", "ticket-1"},
                                                    {"wampcra", "c", "cra"},
                                                    {"wamp-scram", "s", "pw"},
                                                    {"wamp-scram", "a", "pw"},
                                                    {"cryptosign", "k", kSeed}};
  for (const auto& auth : cases) {
    ClientAuth client(auth);
    rauth::Handshake router(&config());
    // Twice: the second time from the session's cached key.
    for (int round = 0; round < 2; ++round) {
      const rauth::Step step = login(client, router);
      ASSERT_EQ(step.kind, rauth::Step::Kind::welcome) << auth.authid << " " << step.message.dump();
      EXPECT_EQ(step.message["authid"], auth.authid);
      EXPECT_TRUE(client.welcome_ok(step.message)) << auth.authid;
    }
  }
}

TEST(WampClientAuth, WrongSecretsAreRefused) {
  const std::vector<WampRequestSpec::Auth> cases = {
      {"ticket", "t", "nope"},
      {"wampcra", "c", "nope"},
      {"wamp-scram", "s", "nope"},
      {"cryptosign", "k", std::string(64, '1')}};  // another key: no principal has it
  for (const auto& auth : cases) {
    ClientAuth client(auth);
    rauth::Handshake router(&config());
    const rauth::Step step = login(client, router);
    EXPECT_EQ(step.kind, rauth::Step::Kind::abort) << auth.method;
    EXPECT_EQ(step.reason, "wamp.error.not_authorized") << auth.method;
  }
}

TEST(WampClientAuth, ScramVerifierMustBeTheRoutersAndChallengesMustMatchTheMethod) {
  const WampRequestSpec::Auth auth{"wamp-scram", "s", "pw"};
  ClientAuth client(auth);
  rauth::Handshake router(&config());
  rauth::Step step = login(client, router);
  ASSERT_EQ(step.kind, rauth::Step::Kind::welcome);
  nlohmann::json forged = step.message;
  forged["authextra"]["verifier"] = "AAAA";
  EXPECT_FALSE(client.welcome_ok(forged));
  EXPECT_FALSE(client.welcome_ok(nlohmann::json::object()));
  // A CHALLENGE for another method, or a SCRAM nonce that does not extend the client's.
  EXPECT_FALSE(client.answer(nlohmann::json::parse(R"([4, "ticket", {}])")).has_value());
  EXPECT_FALSE(
      client
          .answer(nlohmann::json::parse(
              R"([4, "wamp-scram", {"nonce": "other", "salt": "c2FsdA==", "kdf": "pbkdf2", "iterations": 1}])"))
          .has_value());
  // Anonymous: HELLO says nothing about authentication.
  const WampRequestSpec::Auth none{};
  ClientAuth anonymous(none);
  nlohmann::json details = nlohmann::json::object();
  anonymous.add_to_hello(details);
  EXPECT_TRUE(anonymous.anonymous());
  EXPECT_EQ(details, nlohmann::json::object());
}

}  // namespace
}  // namespace benchgate::worker::wamp
