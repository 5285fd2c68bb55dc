// router/wamp/auth: the --auth-config parser (errors with file:line:column) and the
// handshake state machine driven as a client would, for every method, right and wrong.
#include <algorithm>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "common/auth/wamp_methods.h"
#include "router/wamp/auth/auth_config.h"
#include "router/wamp/auth/handshake.h"

namespace benchgate::router::wamp::auth {
namespace {
namespace bauth = benchgate::auth;

constexpr const char* kSeed = "4d57d97a68f555696620a6d849c0ce582568518d729eb753dc7c732de2804510";

std::string config_text() {
  const auto seed = bauth::from_hex(kSeed);
  const auto pubkey = bauth::ed25519_public_key(*seed);
  return R"([[realm]]
name = "bench"
[[realm.role]]
name = "caller"
permissions = [
  { prefix = "bench.", allow = ["call", "subscribe"] },
  { prefix = "bench.admin.", allow = [] },
  { prefix = "bench.admin.public", allow = ["call"] },
]
[[realm.principal]]
authid = "tom"
role = "caller"
method = "ticket"
secret = "tom-ticket"
[[realm.principal]]
authid = "cr"
role = "caller"
method = "wampcra"
secret = "cr-secret"
[[realm.principal]]
authid = "salty"
role = "caller"
method = "wampcra"
secret = "salty-secret"
salt = "salt123"
iterations = 100
keylen = 16
[[realm.principal]]
authid = "user"
role = "caller"
method = "wamp-scram"
secret = "pencil"
salt = "W22ZaJ0SNY7soEsUEjb6gQ=="
iterations = 4096
[[realm.principal]]
authid = "argo"
role = "caller"
method = "wamp-scram"
kdf = "argon2id13"
secret = "argo-secret"
salt = "c2FsdC1mb3ItZGF2ZQ=="
iterations = 1
memory = 64
[[realm.principal]]
authid = "signer"
role = "caller"
method = "cryptosign"
pubkey = ")" +
         bauth::to_hex(*pubkey) + "\"\n";
}

std::shared_ptr<const AuthConfig> config() {
  static const auto parsed = parse_auth_config(config_text(), "auth.toml");
  EXPECT_TRUE(parsed.ok()) << (parsed.ok() ? "" : parsed.message());
  return *parsed;
}

Json hello(const std::string& method, const std::string& authid, Json authextra = Json::object()) {
  return Json{{"roles", {{"caller", Json::object()}}},
              {"authmethods", Json::array({method})},
              {"authid", authid},
              {"authextra", std::move(authextra)}};
}

std::string error_of(std::string_view text) {
  auto parsed = parse_auth_config(text, "auth.toml");
  return parsed.ok() ? std::string("(parsed)") : parsed.message();
}

TEST(WampAuthConfig, RolesDecideByTheLongestPrefix) {
  const RealmAuth* realm = config()->realm("bench");
  ASSERT_NE(realm, nullptr);
  const Role* role = realm->role("caller");
  ASSERT_NE(role, nullptr);
  EXPECT_TRUE(role->allows(Action::call, "bench.echo"));
  EXPECT_TRUE(role->allows(Action::subscribe, "bench.topic"));
  EXPECT_FALSE(role->allows(Action::register_procedure, "bench.echo"));
  EXPECT_FALSE(role->allows(Action::publish, "bench.topic"));
  EXPECT_FALSE(role->allows(Action::call, "bench.admin.stop"));
  EXPECT_TRUE(role->allows(Action::call, "bench.admin.public.info"));
  EXPECT_FALSE(role->allows(Action::call, "other.echo"));
}

TEST(WampAuthConfig, ErrorsNameFileLineColumnKeyAndValue) {
  EXPECT_EQ(error_of("[[realm]]\nname = \"r\"\n[[realm.principal]]\nauthid = \"a\"\nrole = \"x\"\n"
                     "method = \"ticket\"\nsecret = \"s\"\n"),
            "auth.toml:5:8: error: role = 'x' names no [[realm.role]] of realm 'r'");
  EXPECT_EQ(error_of("[[realm]]\nname = \"r\"\n[[realm.role]]\nname = \"x\"\n"
                     "[[realm.principal]]\nauthid = \"a\"\nrole = \"x\"\nmethod = \"magic\"\n"),
            "auth.toml:8:10: error: method = 'magic' is not one of ticket, wampcra, wamp-scram, "
            "cryptosign");
  EXPECT_EQ(error_of("[[realm]]\nname = \"r\"\n[[realm.role]]\nname = \"x\"\n"
                     "permissions = [{ prefix = \"a.\", allow = [\"dance\"] }]\n"),
            "auth.toml:5:42: error: allow value 'dance' is not one of call, register, publish, "
            "subscribe");
  EXPECT_EQ(error_of("[[realm]]\nname = \"r\"\ncolour = 1\n"),
            "auth.toml:3:1: error: unknown key 'colour' in a [[realm]]");
  EXPECT_EQ(
      error_of("[[realm]]\nname = \"r\"\n[[realm.role]]\nname = \"x\"\n"
               "[[realm.principal]]\nauthid = \"a\"\nrole = \"x\"\nmethod = \"cryptosign\"\n"
               "pubkey = \"abcd\"\n"),
      "auth.toml:9:10: error: pubkey = 'abcd' must be an Ed25519 public key as 64 hex digits");
  EXPECT_EQ(error_of("[[realm]]\nname = \"r\"\n[[realm.role]]\nname = \"x\"\n"
                     "[[realm.principal]]\nauthid = \"a\"\nrole = \"x\"\nmethod = \"ticket\"\n"),
            "auth.toml:5:1: error: a principal with method = 'ticket' needs the key 'secret'");
  EXPECT_EQ(error_of("[[realm]\n"),
            "auth.toml:1:9: error: TOML syntax error: Error while parsing table header: expected "
            "']', saw "
            "'\\n'");
  EXPECT_EQ(error_of(""), "auth.toml:1:1: error: the auth config defines no [[realm]]");
}

// check_auth_config (the scenario loader's) refuses what parse_auth_config refuses, in the same
// words, the KDF parameters' bounds included, and derives no key: the parse derives one per
// salted WAMP-CRA secret and one per WAMP-SCRAM principal. (The costly principals cost a parse
// a fraction of a second, not the 4 GiB and the minutes the bounds allow: should the check
// derive again, the test fails on its count, and does not take the machine.)
TEST(WampAuthConfig, TheCheckRefusesWhatTheParseRefusesAndDerivesNothing) {
  const std::string costly = R"([[realm]]
name = "r"
[[realm.role]]
name = "x"
[[realm.principal]]
authid = "argon"
role = "x"
method = "wamp-scram"
kdf = "argon2id13"
secret = "s"
salt = "c2FsdA=="
iterations = 4
memory = 65536
[[realm.principal]]
authid = "pbkdf2"
role = "x"
method = "wamp-scram"
secret = "s"
salt = "c2FsdA=="
iterations = 200000
[[realm.principal]]
authid = "cra"
role = "x"
method = "wampcra"
secret = "s"
salt = "pepper"
iterations = 200000
)";
  const uint64_t before = bauth::auth_key_derivations();
  const auto checked = bauth::check_auth_config(costly, "auth.toml");
  EXPECT_TRUE(checked) << checked.message();
  EXPECT_EQ(bauth::auth_key_derivations(), before);

  const std::string cheap = R"([[realm]]
name = "r"
[[realm.role]]
name = "x"
[[realm.principal]]
authid = "a"
role = "x"
method = "wamp-scram"
secret = "s"
salt = "c2FsdA=="
iterations = 1
[[realm.principal]]
authid = "b"
role = "x"
method = "wampcra"
secret = "s"
salt = "pepper"
iterations = 1
)";
  ASSERT_TRUE(parse_auth_config(cheap, "auth.toml"));
  EXPECT_EQ(bauth::auth_key_derivations(), before + 2);  // the counter sees the parse's

  for (const std::string bad :
       {"memory = 4194305\n", "memory = 7\n", "iterations = 1001\n", "iterations = 0\n",
        "kdf = \"argon2\"\n", "keylen = 32\n", "colour = 1\n"}) {
    const std::string text = R"([[realm]]
name = "r"
[[realm.role]]
name = "x"
[[realm.principal]]
authid = "a"
role = "x"
method = "wamp-scram"
secret = "s"
salt = "c2FsdA=="
)" + (bad.starts_with("kdf") ? std::string() : std::string("kdf = \"argon2id13\"\n")) +
                             bad;
    const auto parsed = parse_auth_config(text, "auth.toml");
    const auto checked_bad = bauth::check_auth_config(text, "auth.toml");
    ASSERT_FALSE(parsed) << bad;
    ASSERT_FALSE(checked_bad) << bad;
    EXPECT_EQ(checked_bad.message(), parsed.message());
  }
  EXPECT_EQ(bauth::auth_key_derivations(), before + 2);
  EXPECT_EQ(bauth::check_auth_config("[[realm]]\nname = \"r\"\n[[realm]]\nname = \"r\"\n", "a.toml")
                .message(),
            "a.toml:4:8: error: realm 'r' is defined twice");
}

// --auth-config naming a folder says so; it was read as an empty file ("PATH:1:1: error: the
// auth config defines no [[realm]]").
TEST(WampAuthConfig, AFolderIsRefusedAsAFolder) {
  std::string folder = ::testing::TempDir();
  while (folder.size() > 1 && folder.back() == '/') folder.pop_back();
  const auto loaded = load_auth_config(folder);
  ASSERT_FALSE(loaded);
  EXPECT_EQ(loaded.message(),
            folder + ": cannot read the auth config (it is a folder, not a regular file)");
}

TEST(WampAuthConfig, AKeyOfTooManyDottedPartsIsRefusedBeforeTomlxxParsesIt) {
  // 60,000 parts overflowed the stack inside toml++ (the router crashed on its config).
  std::string key = "a";
  for (int i = 1; i < 60000; ++i) key += ".a";
  EXPECT_EQ(error_of("[[realm]]\nname = \"r\"\n" + key + " = 1\n"),
            "auth.toml:3:1: error: a key has 60000 dotted parts ('a.a.a...'); at most 64 are "
            "accepted");
  EXPECT_EQ(error_of("[[realm]]\nname = \"r\"\n[" + key + "]\n"),
            "auth.toml:3:2: error: a key has 60000 dotted parts ('a.a.a...'); at most 64 are "
            "accepted");
}

TEST(WampAuthConfig, AMisspeltKeyOrValueIsReportedAtItWithTheNearestKnownOne) {
  // An unknown key at the key itself, not at its value, told the key it may have meant, at
  // every level of the file; so are the values taken from a list and a role's name.
  EXPECT_EQ(error_of("[[realm]]\nnmae = \"r\"\n"),
            "auth.toml:2:1: error: unknown key 'nmae' in a [[realm]] (did you mean 'name'?)");
  EXPECT_EQ(error_of("realms = 1\n"),
            "auth.toml:1:1: error: unknown key 'realms' in the auth config, which takes only "
            "[[realm]] tables (did you mean 'realm'?)");
  EXPECT_EQ(error_of("[[realm]]\nname = \"r\"\n[[realm.role]]\nname = \"x\"\n"
                     "permisions = [{ prefix = \"a.\", allow = [\"call\"] }]\n"),
            "auth.toml:5:1: error: unknown key 'permisions' in a [[realm.role]] (did you mean "
            "'permissions'?)");
  EXPECT_EQ(error_of("[[realm]]\nname = \"r\"\n[[realm.role]]\nname = \"x\"\n"
                     "permissions = [{ prefix = \"a.\", alow = [\"call\"] }]\n"),
            "auth.toml:5:33: error: unknown key 'alow' in a permission (did you mean 'allow'?)");
  EXPECT_EQ(error_of("[[realm]]\nname = \"r\"\n[[realm.role]]\nname = \"x\"\n"
                     "permissions = [{ prefix = \"a.\", allow = [\"cal\"] }]\n"),
            "auth.toml:5:42: error: allow value 'cal' is not one of call, register, publish, "
            "subscribe (did you mean 'call'?)");
  const std::string principal =
      "[[realm]]\nname = \"r\"\n[[realm.role]]\nname = \"caller\"\n[[realm.principal]]\n"
      "authid = \"a\"\n";
  EXPECT_EQ(error_of(principal + "role = \"caler\"\nmethod = \"ticket\"\nsecret = \"s\"\n"),
            "auth.toml:7:8: error: role = 'caler' names no [[realm.role]] of realm 'r' (did you "
            "mean 'caller'?)");
  EXPECT_EQ(error_of(principal + "role = \"caller\"\nmethod = \"tiket\"\nsecret = \"s\"\n"),
            "auth.toml:8:10: error: method = 'tiket' is not one of ticket, wampcra, wamp-scram, "
            "cryptosign (did you mean 'ticket'?)");
  EXPECT_EQ(error_of(principal + "role = \"caller\"\nmethod = \"ticket\"\nsecert = \"s\"\n"),
            "auth.toml:9:1: error: unknown key 'secert' in a [[realm.principal]] (did you mean "
            "'secret'?)");
  EXPECT_EQ(error_of(principal + "role = \"caller\"\nmethod = \"wamp-scram\"\nsecret = \"s\"\n"
                                 "salt = \"c2FsdA==\"\nkdf = \"argon2id31\"\n"),
            "auth.toml:11:7: error: kdf = 'argon2id31' is not pbkdf2 or argon2id13 (did you mean "
            "'argon2id13'?)");
}

TEST(WampAuthConfig, EveryIndependentProblemIsListedInFileOrderEachOnce) {
  // A load that stopped at its first problem made the user fix a file one error per router
  // start. Every role, permission, principal and realm name is checked on its own; within one,
  // the first problem (or every unknown key of it) is reported and the rest of it is not read,
  // and a principal naming a role refused above is not told the realm has no such role.
  EXPECT_EQ(error_of("[[realm]]\n"                                               // 1
                     "name = \"r\"\n"                                            // 2
                     "[[realm.role]]\n"                                          // 3
                     "name = \"caller\"\n"                                       // 4
                     "permissions = [{ prefix = \"a.\", allow = [\"cal\"] },\n"  // 5
                     "               { prefix = \"b.\", alow = [\"call\"] }]\n"  // 6
                     "[[realm.role]]\n"                                          // 7
                     "name = \"admin\"\n"                                        // 8
                     "colour = 1\n"                                              // 9
                     "[[realm.principal]]\n"                                     // 10
                     "authid = \"a\"\n"                                          // 11
                     "role = \"admin\"\n"                                        // 12
                     "method = \"tiket\"\n"                                      // 13
                     "secret = \"s\"\n"                                          // 14
                     "[[realm.principal]]\n"                                     // 15
                     "authid = \"b\"\n"                                          // 16
                     "role = \"caller\"\n"                                       // 17
                     "method = \"ticket\"\n"                                     // 18
                     "secert = \"s\"\n"                                          // 19
                     "[[realm]]\n"                                               // 20
                     "name = \"bad realm\"\n"                                    // 21
                     "[[realm.principal]]\n"                                     // 22
                     "authid = \"c\"\n"                                          // 23
                     "role = \"nobody\"\n"                                       // 24
                     "method = \"ticket\"\n"                                     // 25
                     "secret = \"s\"\n"                                          // 26
                     "[[realm]]\n"                                               // 27
                     "nmae = \"x\"\n"),                                          // 28
            "auth.toml:5:42: error: allow value 'cal' is not one of call, register, publish, "
            "subscribe (did you mean 'call'?)\n"
            "auth.toml:6:33: error: unknown key 'alow' in a permission (did you mean 'allow'?)\n"
            "auth.toml:9:1: error: unknown key 'colour' in a [[realm.role]]\n"
            "auth.toml:13:10: error: method = 'tiket' is not one of ticket, wampcra, wamp-scram, "
            "cryptosign (did you mean 'ticket'?)\n"
            "auth.toml:19:1: error: unknown key 'secert' in a [[realm.principal]] (did you mean "
            "'secret'?)\n"
            "auth.toml:21:8: error: name = 'bad realm' is not a valid realm URI\n"
            "auth.toml:24:8: error: role = 'nobody' names no [[realm.role]] of realm 'bad realm'\n"
            "auth.toml:28:1: error: unknown key 'nmae' in a [[realm]] (did you mean 'name'?)");
  // A misspelt 'realm' is the one problem: the file is not told again that it has no realm.
  EXPECT_EQ(error_of("[[realms]]\nname = \"r\"\n"),
            "auth.toml:1:3: error: unknown key 'realms' in the auth config, which takes only "
            "[[realm]] tables (did you mean 'realm'?)");
}

TEST(WampAuthConfig, PastAHundredProblemsTheFirstHundredInTheFileAreListed) {
  std::string text = "[[realm]]\nname = \"r\"\n";
  for (int i = 0; i < 150; ++i) {
    text += "[[realm.role]]\nname = \"r" + std::to_string(i) + "\"\ncolour = 1\n";
  }
  const std::string message = error_of(text);
  const size_t lines = static_cast<size_t>(std::count(message.begin(), message.end(), '\n')) + 1;
  EXPECT_EQ(lines, 101u) << message;
  EXPECT_TRUE(
      message.starts_with("auth.toml:5:1: error: unknown key 'colour' in a [[realm.role]]\n"))
      << message;
  EXPECT_NE(message.find("auth.toml:302:1: error: unknown key 'colour'"), std::string::npos);
  EXPECT_EQ(message.find("auth.toml:305:1:"), std::string::npos);
  EXPECT_TRUE(message.ends_with(
      "\nauth.toml: error: more than 100 problems; the first 100 in the file are listed"))
      << message;
}

TEST(WampAuthHandshake, WithoutConfigEverySessionIsAnonymous) {
  Handshake handshake(nullptr);
  const Step step = handshake.hello("any.realm", Json::object(), 7);
  ASSERT_EQ(step.kind, Step::Kind::welcome);
  EXPECT_EQ(step.role, nullptr);
  EXPECT_EQ(step.message["authmethod"], "anonymous");
  EXPECT_EQ(step.method_slot, kAnonymousSlot);
}

TEST(WampAuthHandshake, TicketRightAndWrong) {
  Handshake handshake(config().get());
  Step step = handshake.hello("bench", hello("ticket", "tom"), 7);
  ASSERT_EQ(step.kind, Step::Kind::challenge);
  EXPECT_EQ(step.message, Json::parse(R"([4, "ticket", {}])"));
  step = handshake.authenticate("tom-ticket", Json::object());
  ASSERT_EQ(step.kind, Step::Kind::welcome);
  EXPECT_EQ(step.message["authid"], "tom");
  EXPECT_EQ(step.message["authrole"], "caller");
  EXPECT_EQ(step.role->name, "caller");

  step = handshake.hello("bench", hello("ticket", "tom"), 8);
  step = handshake.authenticate("wrong", Json::object());
  ASSERT_EQ(step.kind, Step::Kind::abort);
  EXPECT_EQ(step.reason, "wamp.error.not_authorized");
  EXPECT_EQ(step.fail, FailReason::bad_credentials);
  EXPECT_EQ(step.method_slot, static_cast<int>(Method::ticket));
}

TEST(WampAuthHandshake, WampCraPlainAndSalted) {
  Handshake handshake(config().get());
  Step step = handshake.hello("bench", hello("wampcra", "cr"), 4242);
  ASSERT_EQ(step.kind, Step::Kind::challenge);
  const std::string challenge = step.message[2]["challenge"];
  const Json fields = Json::parse(challenge);
  EXPECT_EQ(fields["session"], 4242);
  EXPECT_EQ(fields["authid"], "cr");
  EXPECT_EQ(fields["authmethod"], "wampcra");
  EXPECT_FALSE(step.message[2].contains("salt"));
  step = handshake.authenticate(bauth::cra_signature("cr-secret", challenge), Json::object());
  EXPECT_EQ(step.kind, Step::Kind::welcome);

  step = handshake.hello("bench", hello("wampcra", "salty"), 1);
  const Json extra = step.message[2];
  EXPECT_EQ(extra["salt"], "salt123");
  EXPECT_EQ(extra["iterations"], 100);
  EXPECT_EQ(extra["keylen"], 16);
  const std::string key = bauth::cra_derive_key("salty-secret", "salt123", 100, 16);
  step = handshake.authenticate(bauth::cra_signature(key, extra["challenge"].get<std::string>()),
                                Json::object());
  EXPECT_EQ(step.kind, Step::Kind::welcome);

  // The unsalted secret does not sign a salted challenge.
  step = handshake.hello("bench", hello("wampcra", "salty"), 2);
  step = handshake.authenticate(
      bauth::cra_signature("salty-secret", step.message[2]["challenge"].get<std::string>()),
      Json::object());
  EXPECT_EQ(step.kind, Step::Kind::abort);
  EXPECT_EQ(step.fail, FailReason::bad_credentials);
}

// A client side of WAMP-SCRAM (spec dialect), as the worker computes it.
Step scram_login(Handshake& handshake, const std::string& authid, const std::string& password,
                 bool repeat_nonce = true) {
  const std::string client_nonce = "egVDf3DMJh0=";
  Step step = handshake.hello("bench", hello("wamp-scram", authid, {{"nonce", client_nonce}}), 1);
  if (step.kind != Step::Kind::challenge) return step;
  const Json& extra = step.message[2];
  bauth::ScramParams params;
  params.kdf = *bauth::kdf_from_name(extra["kdf"].get<std::string>());
  params.salt = extra["salt"];
  params.iterations = extra["iterations"];
  if (extra.contains("memory")) params.memory_kib = extra["memory"];
  const std::string nonce = extra["nonce"];
  EXPECT_TRUE(nonce.starts_with(client_nonce));
  const auto salted = bauth::scram_salted_password(password, params, bauth::ScramDialect::spec);
  const auto keys = bauth::scram_keys(*salted);
  const std::string message =
      bauth::scram_auth_message(authid, client_nonce, nonce, params, bauth::ScramDialect::spec);
  const std::string proof = bauth::to_base64(bauth::scram_client_proof(keys, message));
  Step result = handshake.authenticate(
      proof,
      Json{{"nonce", repeat_nonce ? nonce : std::string("other")}, {"channel_binding", nullptr}});
  if (result.kind == Step::Kind::welcome) {
    EXPECT_EQ(result.message["authextra"]["verifier"],
              bauth::to_base64(bauth::scram_server_signature(keys.server_key, message)));
  }
  return result;
}

TEST(WampAuthHandshake, ScramWithPbkdf2AndArgon2id) {
  Handshake handshake(config().get());
  EXPECT_EQ(scram_login(handshake, "user", "pencil").kind, Step::Kind::welcome);
  EXPECT_EQ(scram_login(handshake, "argo", "argo-secret").kind, Step::Kind::welcome);
  const Step wrong = scram_login(handshake, "user", "pen");
  EXPECT_EQ(wrong.kind, Step::Kind::abort);
  EXPECT_EQ(wrong.fail, FailReason::bad_credentials);
  const Step nonce = scram_login(handshake, "user", "pencil", false);
  EXPECT_EQ(nonce.kind, Step::Kind::abort);
  EXPECT_EQ(nonce.reason, "wamp.error.authentication_failed");
  EXPECT_EQ(nonce.fail, FailReason::malformed);
  // HELLO without the client nonce.
  const Step no_nonce = handshake.hello("bench", hello("wamp-scram", "user"), 1);
  EXPECT_EQ(no_nonce.kind, Step::Kind::abort);
  EXPECT_EQ(no_nonce.fail, FailReason::malformed);
}

TEST(WampAuthHandshake, CryptosignSignatureAloneOrWithTheChallenge) {
  const auto seed = *bauth::from_hex(kSeed);
  const std::string pubkey = bauth::to_hex(*bauth::ed25519_public_key(seed));
  Handshake handshake(config().get());
  for (const bool with_challenge : {false, true}) {
    // By authid, then by public key alone.
    Step step = handshake.hello(
        "bench", hello("cryptosign", with_challenge ? "" : "signer", {{"pubkey", pubkey}}), 1);
    ASSERT_EQ(step.kind, Step::Kind::challenge);
    const auto challenge = *bauth::from_hex(step.message[2]["challenge"].get<std::string>());
    ASSERT_EQ(challenge.size(), 32u);
    const auto signature = *bauth::ed25519_sign(seed, challenge);
    std::string text = bauth::to_hex(signature);
    if (with_challenge) text += bauth::to_hex(challenge);
    step = handshake.authenticate(text, Json::object());
    ASSERT_EQ(step.kind, Step::Kind::welcome);
    EXPECT_EQ(step.message["authid"], "signer");
  }
  Step step = handshake.hello("bench", hello("cryptosign", "signer", {{"pubkey", pubkey}}), 1);
  const auto other = *bauth::from_hex(std::string(64, '1'));
  step = handshake.authenticate(bauth::to_hex(*bauth::ed25519_sign(seed, other)), Json::object());
  EXPECT_EQ(step.kind, Step::Kind::abort);
  EXPECT_EQ(step.fail, FailReason::bad_credentials);
  // Another key than the principal's: no principal, yet a challenge as for a known one.
  step = handshake.hello("bench", hello("cryptosign", "signer", {{"pubkey", std::string(64, 'a')}}),
                         1);
  ASSERT_EQ(step.kind, Step::Kind::challenge);
  const auto mock = *bauth::from_hex(step.message[2]["challenge"].get<std::string>());
  EXPECT_EQ(mock.size(), 32u);
  step = handshake.authenticate(bauth::to_hex(*bauth::ed25519_sign(seed, mock)), Json::object());
  EXPECT_EQ(step.kind, Step::Kind::abort);
  EXPECT_EQ(step.reason, "wamp.error.not_authorized");
  EXPECT_EQ(step.message["message"], "the cryptosign signature is not valid");
  EXPECT_EQ(step.fail, FailReason::bad_credentials);
}

// An authid the realm does not have gets what a known one with a wrong credential gets: a
// CHALLENGE of the same form, then the same ABORT, counted the same.
TEST(WampAuthHandshake, AnUnknownAuthidIsChallengedAsAKnownOneWouldBe) {
  Handshake handshake(config().get());
  Step step = handshake.hello("bench", hello("ticket", "nobody"), 1);
  ASSERT_EQ(step.kind, Step::Kind::challenge);
  EXPECT_EQ(step.message, Json::parse(R"([4, "ticket", {}])"));
  step = handshake.authenticate("guess", Json::object());
  EXPECT_EQ(step.kind, Step::Kind::abort);
  EXPECT_EQ(step.reason, "wamp.error.not_authorized");
  EXPECT_EQ(step.message["message"], "the ticket is not valid");
  EXPECT_EQ(step.fail, FailReason::bad_credentials);
  EXPECT_EQ(step.method_slot, static_cast<int>(Method::ticket));

  // WAMP-SCRAM: a salt that is always the same for the authid (and another for another), a
  // realm principal's KDF parameters; the proof then fails as a wrong password's does.
  auto challenge_of = [&](const std::string& authid) {
    Handshake fresh(config().get());
    return fresh.hello("bench", hello("wamp-scram", authid, {{"nonce", "egVDf3DMJh0="}}), 1);
  };
  const Step first = challenge_of("mallory");
  ASSERT_EQ(first.kind, Step::Kind::challenge);
  const Json& extra = first.message[2];
  EXPECT_EQ(extra["salt"], challenge_of("mallory").message[2]["salt"]);
  EXPECT_NE(extra["salt"], challenge_of("mallory2").message[2]["salt"]);
  // The KDF parameters and salt length of one of the realm's WAMP-SCRAM principals.
  const size_t salt_bytes = bauth::from_base64(extra["salt"].get<std::string>())->size();
  if (extra["kdf"] == "pbkdf2") {
    EXPECT_EQ(salt_bytes, 16u);  // user's
    EXPECT_EQ(extra["iterations"], 4096);
    EXPECT_FALSE(extra.contains("memory"));
  } else {
    EXPECT_EQ(salt_bytes, 13u);  // argo's
    EXPECT_EQ(extra["kdf"], "argon2id13");
    EXPECT_EQ(extra["iterations"], 1);
    EXPECT_EQ(extra["memory"], 64);
  }
  EXPECT_TRUE(extra["nonce"].get<std::string>().starts_with("egVDf3DMJh0="));
  const Step unknown = scram_login(handshake, "mallory", "pencil");
  const Step wrong = scram_login(handshake, "user", "pen");
  EXPECT_EQ(unknown.kind, Step::Kind::abort);
  EXPECT_EQ(unknown.reason, wrong.reason);
  EXPECT_EQ(unknown.message, wrong.message);
  EXPECT_EQ(unknown.fail, FailReason::bad_credentials);
  EXPECT_EQ(wrong.fail, FailReason::bad_credentials);

  // A method whose HELLO part is malformed finds no principal, known or not, and is refused
  // only when no other method is left.
  Json malformed_only = hello("wamp-scram", "user");  // a known WAMP-SCRAM authid, no nonce
  step = Handshake(config().get()).hello("bench", malformed_only, 1);
  EXPECT_EQ(step.fail, FailReason::malformed);
  malformed_only["authid"] = "nobody";
  EXPECT_EQ(Handshake(config().get()).hello("bench", malformed_only, 1).message, step.message);
}

// The keys of a JSON object and the type of each value, recursively: what a CHALLENGE shows
// apart from the values themselves.
Json shape_of(const Json& value) {
  if (value.is_object()) {
    Json shape = Json::object();
    for (const auto& [key, item] : value.items()) shape[key] = shape_of(item);
    return shape;
  }
  if (value.is_array()) {
    Json shape = Json::array();
    for (const Json& item : value) shape.push_back(shape_of(item));
    return shape;
  }
  return value.type_name();
}

Json all_methods(const std::string& authid, Json order) {
  const auto seed = bauth::from_hex(kSeed);
  Json details = hello(
      "ticket", authid,
      {{"nonce", "egVDf3DMJh0="}, {"pubkey", bauth::to_hex(*bauth::ed25519_public_key(*seed))}});
  details["authmethods"] = std::move(order);
  return details;
}

// Offered several methods, an unknown authid is challenged with a method as a known one is:
// one of the sets the realm's authids have, always the same for that authid, whatever the
// order, and over many authids each method the known ones get.
TEST(WampAuthHandshake, WhichOfSeveralMethodsIsChallengedDoesNotTellUnknownAuthidsApart) {
  const Json forward = Json::array({"ticket", "wampcra", "wamp-scram", "cryptosign"});
  const Json backward = Json::array({"cryptosign", "wamp-scram", "wampcra", "ticket"});
  std::set<std::string> known_methods;
  for (const char* authid : {"tom", "cr", "user", "signer"}) {
    const Step step = Handshake(config().get()).hello("bench", all_methods(authid, forward), 1);
    ASSERT_EQ(step.kind, Step::Kind::challenge) << authid;
    known_methods.insert(step.message[1].get<std::string>());
  }
  EXPECT_EQ(known_methods.size(), 4u);

  std::set<std::string> unknown_methods;
  for (int i = 0; i < 64; ++i) {
    const std::string authid = "ghost" + std::to_string(i);
    const Step step = Handshake(config().get()).hello("bench", all_methods(authid, forward), 1);
    ASSERT_EQ(step.kind, Step::Kind::challenge) << authid;
    const std::string method = step.message[1];
    unknown_methods.insert(method);
    // Every realm authid has one method: the order offered does not change it, nor a retry.
    EXPECT_EQ(Handshake(config().get()).hello("bench", all_methods(authid, backward), 1).message[1],
              method)
        << authid;
    EXPECT_EQ(Handshake(config().get()).hello("bench", all_methods(authid, forward), 1).message[1],
              method)
        << authid;
  }
  EXPECT_EQ(unknown_methods, known_methods);
}

// An unknown authid challenged with WAMP-CRA (offered alone, or picked from several) gets a
// challenge of a known one's shape, with a role of the realm and, where the picked principal's
// secret is salted, a salt that is the same on every attempt; then a wrong secret's ABORT.
TEST(WampAuthHandshake, AnUnknownAuthidGetsAWampCraChallengeShapedAsAKnownOnes) {
  const auto challenge_of = [](const std::string& authid) {
    return Handshake(config().get()).hello("bench", hello("wampcra", authid), 99);
  };
  const Step plain = challenge_of("cr");
  const Step salted = challenge_of("salty");
  bool seen_plain = false;
  bool seen_salted = false;
  for (int i = 0; i < 32; ++i) {
    const std::string authid = "ghost" + std::to_string(i);
    Handshake handshake(config().get());
    const Step step = handshake.hello("bench", hello("wampcra", authid), 99);
    ASSERT_EQ(step.kind, Step::Kind::challenge) << authid;
    const Json& extra = step.message[2];
    const Step& known = extra.contains("salt") ? salted : plain;
    (extra.contains("salt") ? seen_salted : seen_plain) = true;
    EXPECT_EQ(shape_of(step.message), shape_of(known.message)) << authid;
    const Json fields = Json::parse(extra["challenge"].get<std::string>());
    EXPECT_EQ(shape_of(fields),
              shape_of(Json::parse(known.message[2]["challenge"].get<std::string>())));
    EXPECT_EQ(fields["authid"], authid);
    EXPECT_EQ(fields["authrole"], "caller");
    if (extra.contains("salt")) {
      EXPECT_EQ(extra["salt"].get<std::string>().size(), std::string("salt123").size());
      EXPECT_EQ(extra["salt"], challenge_of(authid).message[2]["salt"]) << authid;
      EXPECT_EQ(extra["iterations"], 100);
      EXPECT_EQ(extra["keylen"], 16);
    }
    const Step unknown = handshake.authenticate(
        bauth::cra_signature("cr-secret", extra["challenge"].get<std::string>()), Json::object());
    Handshake other(config().get());
    const Step known_challenge = other.hello("bench", hello("wampcra", "cr"), 99);
    const Step wrong = other.authenticate(
        bauth::cra_signature("guess", known_challenge.message[2]["challenge"].get<std::string>()),
        Json::object());
    EXPECT_EQ(unknown.kind, Step::Kind::abort);
    EXPECT_EQ(unknown.reason, wrong.reason);
    EXPECT_EQ(unknown.message, wrong.message);
    EXPECT_EQ(unknown.fail, wrong.fail);
    EXPECT_EQ(unknown.method_slot, static_cast<int>(Method::wampcra));
  }
  EXPECT_TRUE(seen_plain);
  EXPECT_TRUE(seen_salted);
}

// A realm whose authids have several methods each, with settings that tell them apart.
std::string several_methods_text() {
  const auto seed = bauth::from_hex(kSeed);
  const std::string pubkey = bauth::to_hex(*bauth::ed25519_public_key(*seed));
  return R"([[realm]]
name = "multi"
[[realm.role]]
name = "reader"
[[realm.role]]
name = "writer"
[[realm.principal]]
authid = "alice"
role = "reader"
method = "wampcra"
secret = "a"
salt = "pepper"
iterations = 100
keylen = 16
[[realm.principal]]
authid = "alice"
role = "reader"
method = "wamp-scram"
kdf = "argon2id13"
secret = "a"
salt = "c2FsdC1mb3ItZGF2ZQ=="
iterations = 1
memory = 64
[[realm.principal]]
authid = "bob"
role = "reader"
method = "ticket"
secret = "b"
[[realm.principal]]
authid = "bob"
role = "reader"
method = "wamp-scram"
secret = "b"
salt = "W22ZaJ0SNY7soEsUEjb6gQ=="
iterations = 4096
[[realm.principal]]
authid = "carol"
role = "writer"
method = "ticket"
secret = "c"
[[realm.principal]]
authid = "carol"
role = "writer"
method = "wampcra"
secret = "c"
[[realm.principal]]
authid = "dave"
role = "writer"
method = "wamp-scram"
secret = "d"
salt = "ZGF2ZXNhbHQ="
iterations = 1000
[[realm.principal]]
authid = "dave"
role = "writer"
method = "cryptosign"
pubkey = ")" +
         pubkey + "\"\n";
}

// What a client can learn of `authid` without credentials: the methods it is challenged with
// as having (m is one where offering m before any other method challenges m), and for each the
// CHALLENGE's settings (WAMP-CRA's role and salt settings, WAMP-SCRAM's KDF parameters and salt
// length), without the values made up per attempt.
Json visible_profile(const AuthConfig& config, const std::string& authid) {
  const std::vector<std::string> methods = {"ticket", "wampcra", "wamp-scram", "cryptosign"};
  const auto challenge = [&](Json order) {
    const Step step = Handshake(&config).hello("multi", all_methods(authid, std::move(order)), 1);
    EXPECT_EQ(step.kind, Step::Kind::challenge) << authid;
    return step.message;
  };
  Json profile = Json::object();
  for (const std::string& method : methods) {
    bool has = true;
    for (const std::string& other : methods) {
      if (other != method && challenge(Json::array({method, other}))[1] != method) has = false;
    }
    if (!has) continue;
    Json extra = challenge(Json::array({method}))[2];
    Json settings = Json::object();
    if (method == "wampcra") {
      settings["authrole"] = Json::parse(extra["challenge"].get<std::string>())["authrole"];
      if (extra.contains("salt")) {
        settings["salt length"] = extra["salt"].get<std::string>().size();
        settings["iterations"] = extra["iterations"];
        settings["keylen"] = extra["keylen"];
      }
    } else if (method == "wamp-scram") {
      settings["salt bytes"] = bauth::from_base64(extra["salt"].get<std::string>())->size();
      settings["kdf"] = extra["kdf"];
      settings["iterations"] = extra["iterations"];
      settings["memory"] = extra.contains("memory") ? extra["memory"] : Json();
    }
    profile[method] = std::move(settings);
  }
  return profile;
}

// An unknown authid shows the methods of one of the realm's authids and, for those, that
// authid's own settings: no mix of one authid's methods with another's parameters.
TEST(WampAuthHandshake, AnUnknownAuthidShowsTheMethodsAndSettingsOfOneRealAuthid) {
  const auto parsed = parse_auth_config(several_methods_text(), "auth.toml");
  ASSERT_TRUE(parsed.ok()) << (parsed.ok() ? "" : parsed.message());
  const AuthConfig& multi = **parsed;
  std::set<Json> real;
  for (const char* authid : {"alice", "bob", "carol", "dave"}) {
    real.insert(visible_profile(multi, authid));
  }
  EXPECT_EQ(real.size(), 4u);
  std::set<Json> shown;
  for (int i = 0; i < 24; ++i) {
    const std::string authid = "ghost" + std::to_string(i);
    const Json profile = visible_profile(multi, authid);
    EXPECT_TRUE(real.contains(profile)) << authid << ": " << profile.dump();
    shown.insert(profile);
  }
  EXPECT_GT(shown.size(), 1u);
}

std::string sorted(std::string text) {
  std::sort(text.begin(), text.end());
  return text;
}

// The salts of mock WAMP-CRA challenges of realm `realm` in `config` for 32 unknown authids
// (those challenged with a salted secret), checked to be the same on every attempt.
std::vector<std::string> mock_salts(const AuthConfig& config, const std::string& realm) {
  std::vector<std::string> salts;
  for (int i = 0; i < 32; ++i) {
    const std::string authid = "ghost" + std::to_string(i);
    const Step step = Handshake(&config).hello(realm, hello("wampcra", authid), 1);
    EXPECT_EQ(step.kind, Step::Kind::challenge) << authid;
    if (!step.message[2].contains("salt")) continue;
    EXPECT_EQ(Handshake(&config).hello(realm, hello("wampcra", authid), 1).message[2]["salt"],
              step.message[2]["salt"])
        << authid;
    EXPECT_NO_THROW(step.message.dump()) << authid;  // whole UTF-8 characters
    salts.push_back(step.message[2]["salt"]);
  }
  return salts;
}

std::shared_ptr<const AuthConfig> one_salted_principal(const std::string& salt) {
  auto parsed = parse_auth_config(
      "[[realm]]\nname = \"r\"\n[[realm.role]]\nname = \"x\"\n[[realm.principal]]\n"
      "authid = \"a\"\nrole = \"x\"\nmethod = \"wampcra\"\nsecret = \"s\"\n"
      "salt = \"" +
          salt + "\"\n",
      "auth.toml");
  EXPECT_TRUE(parsed.ok()) << (parsed.ok() ? "" : parsed.message());
  return parsed.ok() ? *parsed : nullptr;
}

// A mock WAMP-CRA salt is the configured salt it copies, shuffled: exactly its characters, as
// many of each ("pepper" gives orders of e, p and r, never another letter of a-z, which would
// tell the made-up salts from the real one), in an order that is the same on every attempt and
// differs from one authid to the next.
TEST(WampAuthHandshake, AMockWampCraSaltIsTheConfiguredSaltShuffled) {
  const std::vector<std::string> seven = mock_salts(*config(), "bench");
  EXPECT_FALSE(seven.empty());
  for (const std::string& salt : seven) EXPECT_EQ(sorted(salt), sorted("salt123")) << salt;

  for (const std::string model : {"pepper", "9f3c0a7be21d4c88", "s\u00e4lz\u20ac+/="}) {
    const auto config = one_salted_principal(model);
    ASSERT_NE(config, nullptr);
    const std::vector<std::string> salts = mock_salts(*config, "r");
    EXPECT_EQ(salts.size(), 32u) << model;
    std::set<std::string> distinct;
    for (const std::string& salt : salts) {
      EXPECT_EQ(sorted(salt), sorted(model)) << model << ": " << salt;
      distinct.insert(salt);
    }
    EXPECT_GT(distinct.size(), 16u) << model;
  }
}

// The counters (/metrics, the control endpoint) say no more than the ABORT does: an unknown
// authid's refusal is a wrong credential's in every field a counter takes, for every method,
// and no reason label names unknown authids.
TEST(WampAuthHandshake, TheCountersDoNotTellAnUnknownAuthidFromAWrongCredential) {
  const auto seed = bauth::from_hex(kSeed);
  const auto refusal = [&](const std::string& method, const std::string& authid) {
    Json extra = Json::object();
    if (method == "wamp-scram") extra["nonce"] = "egVDf3DMJh0=";
    if (method == "cryptosign") extra["pubkey"] = bauth::to_hex(*bauth::ed25519_public_key(*seed));
    Handshake handshake(config().get());
    const Step challenge = handshake.hello("bench", hello(method, authid, extra), 1);
    EXPECT_EQ(challenge.kind, Step::Kind::challenge) << method << " " << authid;
    Json signature = "wrong";
    Json authenticate_extra = Json::object();
    if (method == "wamp-scram") {
      signature = bauth::to_base64(bauth::Bytes(32, 7));
      authenticate_extra["nonce"] = challenge.message[2]["nonce"];
    }
    if (method == "cryptosign") signature = std::string(128, '0');
    return handshake.authenticate(signature, authenticate_extra);
  };
  const std::pair<const char*, const char*> known[] = {
      {"ticket", "tom"}, {"wampcra", "cr"}, {"wamp-scram", "user"}, {"cryptosign", "signer"}};
  for (const auto& [method, authid] : known) {
    const Step wrong = refusal(method, authid);
    const Step unknown = refusal(method, "nobody");
    EXPECT_EQ(wrong.kind, Step::Kind::abort) << method;
    EXPECT_EQ(wrong.fail, FailReason::bad_credentials) << method;
    EXPECT_EQ(unknown.fail, wrong.fail) << method;
    EXPECT_EQ(unknown.method_slot, wrong.method_slot) << method;
    EXPECT_EQ(unknown.reason, wrong.reason) << method;
    EXPECT_EQ(unknown.message, wrong.message) << method;
  }
  std::set<std::string> labels;
  for (int r = 0; r < kFailReasons; ++r) {
    labels.insert(std::string(fail_reason_label(static_cast<FailReason>(r))));
  }
  EXPECT_EQ(labels, (std::set<std::string>{"no_such_realm", "no_auth_method", "bad_credentials",
                                           "malformed"}));
}

TEST(WampAuthHandshake, RefusalsBeforeAnyChallenge) {
  Handshake handshake(config().get());
  Step step = handshake.hello("elsewhere", hello("ticket", "tom"), 1);
  EXPECT_EQ(step.reason, "wamp.error.no_such_realm");
  EXPECT_EQ(step.fail, FailReason::no_such_realm);
  EXPECT_EQ(step.method_slot, static_cast<int>(Method::ticket));
  // A realm not in the file is counted under the first method offered that the router knows
  // (it was always anonymous's), anonymous when none is.
  Json offered = hello("wampcra", "cr");
  EXPECT_EQ(handshake.hello("elsewhere", offered, 1).method_slot,
            static_cast<int>(Method::wampcra));
  offered["authmethods"] = Json::array({"anonymous", 7, "wamp-scram", "ticket"});
  EXPECT_EQ(handshake.hello("elsewhere", offered, 1).method_slot, static_cast<int>(Method::scram));
  offered["authmethods"] = Json::array({"anonymous", "x-unknown"});
  EXPECT_EQ(handshake.hello("elsewhere", offered, 1).method_slot, kAnonymousSlot);
  EXPECT_EQ(handshake.hello("elsewhere", Json{{"roles", Json::object()}}, 1).method_slot,
            kAnonymousSlot);
  step = handshake.hello("bench", Json{{"roles", Json::object()}}, 1);  // anonymous
  EXPECT_EQ(step.reason, "wamp.error.no_auth_method");
  EXPECT_EQ(step.method_slot, kAnonymousSlot);
  // Only WAMP-CRA offered, in a realm without a WAMP-CRA principal: refused at HELLO, whatever
  // the authid.
  const auto no_cra = parse_auth_config(
      "[[realm]]\nname = \"r\"\n[[realm.role]]\nname = \"x\"\n[[realm.principal]]\n"
      "authid = \"a\"\nrole = \"x\"\nmethod = \"ticket\"\nsecret = \"s\"\n",
      "auth.toml");
  ASSERT_TRUE(no_cra.ok());
  std::set<Json> refusals;
  for (const char* authid : {"a", "nobody"}) {
    step = Handshake(no_cra->get()).hello("r", hello("wampcra", authid), 1);
    EXPECT_EQ(step.reason, "wamp.error.no_auth_method");
    EXPECT_EQ(step.fail, FailReason::no_auth_method);
    EXPECT_EQ(step.method_slot, static_cast<int>(Method::wampcra));
    refusals.insert(step.message);
  }
  EXPECT_EQ(refusals.size(), 1u);
  // A method offered later in the list is used when an earlier one has no principal.
  Json details = hello("wampcra", "tom");
  details["authmethods"] = Json::array({"wampcra", "ticket"});
  step = handshake.hello("bench", details, 1);
  ASSERT_EQ(step.kind, Step::Kind::challenge);
  EXPECT_EQ(step.message[1], "ticket");
  // AUTHENTICATE with no CHALLENGE out.
  Handshake fresh(config().get());
  EXPECT_EQ(fresh.authenticate("x", Json::object()).fail, FailReason::malformed);
}

}  // namespace
}  // namespace benchgate::router::wamp::auth
