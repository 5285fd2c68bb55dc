// The bundled router's static authentication and authorization settings (its --auth-config FILE,
// TOML; router/wamp/auth/auth_config.h brings these names into the router): per realm, the
// principals that may join it (authid, role, method and credentials) and the roles with their
// permissions on URI prefixes. Loaded and checked once at start; the WAMP thread only reads it.
// Credentials that need a key derivation (salted WAMP-CRA secrets, WAMP-SCRAM) are derived at load,
// so a handshake costs the router HMACs only. The orchestrator checks a scenario's [router]
// auth_config with the same parser when it loads the scenario (check_auth_config, which derives
// nothing), so a file the router would refuse is refused before anything starts.
//
//   [[realm]]
//   name = "bench"
//   [[realm.role]]
//   name = "caller"
//   permissions = [{ prefix = "bench.", allow = ["call", "subscribe"] }]
//   [[realm.principal]]
//   authid = "alice"
//   role = "caller"
//   method = "wampcra"          # ticket | wampcra | wamp-scram | cryptosign
//   secret = "s3cret"           # ticket, wampcra, wamp-scram
//   salt = "pepper"             # wampcra: salted secret (PBKDF2; iterations, keylen)
//   # wamp-scram: kdf = "pbkdf2" | "argon2id13", salt (base64), iterations, memory (KiB)
//   # cryptosign: pubkey = "<64 hex digits>"
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/auth/wamp_methods.h"
#include "common/util/expected.h"

namespace benchgate::auth {

// What a session asks to do with a URI.
enum class Action : uint8_t { call = 0, register_procedure = 1, publish = 2, subscribe = 3 };
inline constexpr int kActions = 4;
std::string_view action_name(Action action);  // "call", "register", "publish", "subscribe"

struct Permission {
  std::string prefix;  // "" matches every URI
  std::array<bool, kActions> allow{};
};

struct Role {
  std::string name;
  std::vector<Permission> permissions;
  // The permission with the longest prefix of `uri` decides; none: refused.
  bool allows(Action action, std::string_view uri) const;
};

struct Principal {
  std::string authid;
  const Role* role = nullptr;
  Method method = Method::ticket;
  std::string ticket;  // ticket
  // wampcra: the HMAC key (the secret, or for a salted secret its PBKDF2-derived key) and the
  // salt parameters sent in CHALLENGE.
  std::string cra_key;
  bool cra_salted = false;
  std::string cra_salt;
  uint32_t cra_iterations = 1000;
  uint32_t cra_keylen = 32;
  // wamp-scram: the parameters and the keys for both dialects (common/auth/wamp_methods.h).
  ScramParams scram;
  ScramKeys scram_spec;
  ScramKeys scram_autobahn;
  // cryptosign: the Ed25519 public key.
  std::array<uint8_t, 32> pubkey{};
};

struct RealmAuth {
  std::string name;
  std::vector<std::unique_ptr<Role>> roles;
  std::vector<Principal> principals;

  // The authids the realm has, each once, in the order of first appearance. Filled at load;
  // the handshake treats an unknown authid as one of these (handshake.h): its methods, its
  // principals' settings.
  std::vector<std::string> authids;

  const Role* role(std::string_view name) const;
  // The methods `authid` has principals for, as bits (1 << Method); 0 for none.
  uint8_t methods_of(std::string_view authid) const;
  const Principal* find(Method method, std::string_view authid) const;
  const Principal* find_pubkey(std::span<const uint8_t> pubkey) const;
};

struct AuthConfig {
  std::string path;
  std::vector<std::unique_ptr<RealmAuth>> realms;
  // SHA-256 of the file's text (its secrets with it): the key of what mock challenges make up
  // (handshake.h), the same for every router run with this file.
  Digest mock_key{};
  const RealmAuth* realm(std::string_view name) const;
};

// Parses `text` (the contents of `path`), deriving every key; the error lists every problem
// found (at most 100), one a line in file order, each naming path:line:column, key and value.
Expected<std::shared_ptr<const AuthConfig>> parse_auth_config(std::string_view text,
                                                              const std::string& path);
// Checks `text` as parse_auth_config does, every key and value (the KDF parameters' bounds too),
// with the same problems in the same words, but derives no key: the scenario loader asks whether
// the router would accept the file, and a derivation may cost up to 4 GiB of memory (Argon2id)
// or 10 million PBKDF2 iterations per principal, which the router alone pays, once, at start.
Expected<void> check_auth_config(std::string_view text, const std::string& path);
// Reads and parses `path`. A file that cannot be read, is not a regular file or holds more than
// kMaxAuthConfigBytes is refused as "PATH: cannot read the auth config (WHY)": "(no such file or
// directory)", "(it is a folder, not a regular file)"; a FIFO is refused, not waited on.
Expected<std::shared_ptr<const AuthConfig>> load_auth_config(const std::string& path);
inline constexpr uint64_t kMaxAuthConfigBytes = uint64_t{16} << 20;

// How many key derivations (a salted WAMP-CRA secret's PBKDF2; a WAMP-SCRAM principal's salted
// passwords) the parser has run in this process: what tests count to see that
// check_auth_config derives nothing.
uint64_t auth_key_derivations();

}  // namespace benchgate::auth
