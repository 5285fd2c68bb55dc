// libFuzzer target: the router's authentication handshake (router/wamp/auth) as
// router/wamp/session.cc drives it. The input is one serialized list of client messages (first
// byte: the serializer); each that passes check_client_message goes to the handshake: HELLO
// to hello(), AUTHENTICATE to authenticate(), against a config with a principal of every
// method, whose keys are derived once (parse_auth_config, with small KDF parameters). With the
// first byte's high bit set the rest is an auth config text instead, checked as the scenario
// loader checks a [router] auth_config, which a client of `orchestrator serve` may send
// (check_auth_config: the TOML reader and every key and value, the KDF parameters' bounds
// too). It derives no key: a text may ask for what the parser allows, up to 10 million PBKDF2
// iterations or 4 GiB of Argon2id memory per principal (the deriving parser took over 20 s on
// the seed config_kdf_at_its_bounds, a fuzzer's whole run of a few seconds on one input). The
// router derives only its operator's --auth-config, once, at start.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "common/auth/auth_config.h"
#include "router/wamp/auth/auth_config.h"
#include "router/wamp/auth/handshake.h"
#include "router/wamp/message_check.h"
#include "router/wamp/serializer.h"

namespace {

namespace wamp = benchgate::router::wamp;
namespace auth = benchgate::router::wamp::auth;

constexpr const char* kConfig = R"([[realm]]
name = "bench"
[[realm.role]]
name = "r"
permissions = [{ prefix = "bench.", allow = ["call"] }]
[[realm.principal]]
authid = "t"
role = "r"
method = "ticket"
secret = "ticket"
[[realm.principal]]
authid = "c"
role = "r"
method = "wampcra"
secret = "secret"
salt = "salt"
iterations = 2
[[realm.principal]]
authid = "s"
role = "r"
method = "wamp-scram"
secret = "pencil"
salt = "c2FsdA=="
iterations = 2
[[realm.principal]]
authid = "a"
role = "r"
method = "wamp-scram"
kdf = "argon2id13"
secret = "pencil"
salt = "c2FsdHNhbHQ="
iterations = 1
memory = 8
[[realm.principal]]
authid = "k"
role = "r"
method = "cryptosign"
pubkey = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"
)";

const auth::AuthConfig& config() {
  static const std::shared_ptr<const auth::AuthConfig> parsed = [] {
    auto loaded = auth::parse_auth_config(kConfig, "fuzz.toml");
    if (!loaded) __builtin_trap();
    return *loaded;
  }();
  return *parsed;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  if (data[0] & 0x80) {
    const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
    (void)benchgate::auth::check_auth_config(text, "fuzz.toml");
    return 0;
  }
  const auto serializer = static_cast<wamp::Serializer>(data[0] % wamp::kSerializerCount);
  wamp::Json messages;
  if (!wamp::decode(serializer, std::span<const uint8_t>(data + 1, size - 1), messages)) return 0;
  if (!messages.is_array()) return 0;
  auth::Handshake handshake(&config());
  for (const wamp::Json& message : messages) {
    const wamp::CheckResult check = wamp::check_client_message(message);
    if (!check.ok()) continue;
    auth::Step step;
    if (check.type == wamp::MessageType::kHello) {
      step = handshake.hello(message[1].get<std::string>(), message[2], 1);
    } else if (check.type == wamp::MessageType::kAuthenticate) {
      step = handshake.authenticate(message[1], message[2]);
    } else {
      continue;
    }
    // What the session sends must be well-formed: a refusal has a reason and a message, a
    // welcome an authid and a role.
    if (step.kind == auth::Step::Kind::abort &&
        (step.reason.empty() || !step.message["message"].is_string())) {
      __builtin_trap();
    }
    if (step.kind == auth::Step::Kind::welcome && !step.message["authid"].is_string()) {
      __builtin_trap();
    }
  }
  return 0;
}
