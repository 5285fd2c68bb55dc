// The router's side of WAMP authentication (see handshake.h).
#include "router/wamp/auth/handshake.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace benchgate::router::wamp::auth {
namespace bauth = benchgate::auth;
namespace {

constexpr const char* kNotAuthorized = "wamp.error.not_authorized";
constexpr const char* kAuthenticationFailed = "wamp.error.authentication_failed";

std::string string_at(const Json& object, const char* key) {
  if (!object.is_object()) return {};
  const auto found = object.find(key);
  return found != object.end() && found->is_string() ? found->get<std::string>() : std::string();
}

// The method slot a refusal at HELLO before any method is picked is counted under: the first
// of HELLO.Details.authmethods that the router knows (ticket, wampcra, wamp-scram or scram,
// cryptosign), else anonymous (no authmethods, or none the router knows).
int offered_method_slot(const Json& details) {
  if (!details.is_object()) return kAnonymousSlot;
  const auto methods = details.find("authmethods");
  if (methods == details.end() || !methods->is_array()) return kAnonymousSlot;
  for (const Json& offered : *methods) {
    if (!offered.is_string()) continue;
    if (const auto method = bauth::method_from_name(offered.get<std::string>())) {
      return static_cast<int>(*method);
    }
  }
  return kAnonymousSlot;
}

// AUTHENTICATE.Signature as text: a string, or (Autobahn sends its SCRAM proof as bytes) a
// binary value holding the text.
std::string signature_text(const Json& signature) {
  if (signature.is_string()) return signature.get<std::string>();
  if (signature.is_binary()) {
    const auto& bytes = signature.get_binary();
    return std::string(bytes.begin(), bytes.end());
  }
  return {};
}

// `bytes` bytes made up for `authid` of `realm`: HMAC-SHA256 under `key` over the realm and the
// authid (and a block counter past 32 bytes), so that the same authid always gets the same
// bytes from a router with the same file.
bauth::Bytes made_up_bytes(const bauth::Digest& key, const std::string& realm,
                           const std::string& authid, size_t bytes) {
  std::string data = realm;
  data.push_back('\0');
  data += authid;
  data.push_back('\0');
  bauth::Bytes out;
  for (char block = 0; out.size() < bytes; ++block) {
    data.back() = block;
    const bauth::Digest digest = bauth::hmac_sha256(key, bauth::as_bytes(data));
    out.insert(
        out.end(), digest.begin(),
        digest.begin() + static_cast<std::ptrdiff_t>(std::min(digest.size(), bytes - out.size())));
  }
  return out;
}

// The key of one use of made-up bytes (the WAMP-SCRAM salt keeps the config's key itself).
bauth::Digest use_key(const bauth::Digest& key, std::string_view use) {
  return bauth::hmac_sha256(key, bauth::as_bytes(use));
}

// A made-up index below `count` (> 0) for `authid`, the same on every attempt.
size_t made_up_index(const AuthConfig& config, std::string_view use, const std::string& realm,
                     const std::string& authid, size_t count) {
  const bauth::Bytes bytes = made_up_bytes(use_key(config.mock_key, use), realm, authid, 8);
  uint64_t value = 0;
  for (const uint8_t byte : bytes) value = (value << 8) | byte;
  return static_cast<size_t>(value % count);
}

uint8_t method_bit(Method method) {
  return static_cast<uint8_t>(1u << static_cast<unsigned>(method));
}

// The realm authid that `authid`, one the realm lacks, is treated as: picked by a made-up
// index, so the same on every attempt; nullptr for an authid the realm has and for an empty one
// (only a cryptosign public key's, known or not).
const std::string* model_authid(const AuthConfig& config, const RealmAuth& realm,
                                const std::string& authid) {
  if (authid.empty() || realm.authids.empty() || realm.methods_of(authid) != 0) return nullptr;
  return &realm.authids[made_up_index(config, "methods", realm.name, authid, realm.authids.size())];
}

// The methods the handshake treats `authid` as having principals for: its own, or for one the
// realm lacks those of the authid it is treated as (`like`, model_authid), so that which method
// of several offered is challenged follows the same rule, and the same odds, for authids that
// exist and those that do not. An empty authid can only be a cryptosign public key's.
uint8_t methods_for(const RealmAuth& realm, const std::string& authid, const std::string* like) {
  if (authid.empty()) return method_bit(Method::cryptosign);
  return realm.methods_of(like != nullptr ? *like : authid);
}

// The principal of `method` whose settings (role, salt, KDF parameters) a mock challenge of
// that method copies: that of the authid an unknown one is treated as (`like`), where it has
// one, so that the methods and the settings a client sees are those of one real authid; else
// (a method the authid is challenged with though it lacks it) one of the realm's principals of
// that method picked by a made-up index; nullptr where the realm has none.
const Principal* model_of(const AuthConfig& config, const RealmAuth& realm, Method method,
                          const std::string& authid, const std::string* like) {
  if (like != nullptr) {
    if (const Principal* own = realm.find(method, *like)) return own;
  }
  const auto count =
      static_cast<size_t>(std::count_if(realm.principals.begin(), realm.principals.end(),
                                        [&](const Principal& p) { return p.method == method; }));
  if (count == 0) return nullptr;
  size_t index =
      made_up_index(config, std::string("model ") + std::string(bauth::method_name(method)),
                    realm.name, authid, count);
  for (const Principal& p : realm.principals) {
    if (p.method != method) continue;
    if (index-- == 0) return &p;
  }
  return nullptr;
}

// A mock WAMP-CRA salt: the model salt's own characters in an order made up for `authid`
// (made_up_bytes under `key`, a Fisher-Yates shuffle, each order equally likely), so that it
// has the model's length and exactly its letters, as many of each: a salt drawn from the
// letters' class instead ("pepper" giving any of a-z) shows, over a few authids, which salts
// are made up. Whole UTF-8 characters are moved (the salt goes into JSON, and the config file's
// salt is valid UTF-8), the same on every attempt.
std::string shuffled_salt(const bauth::Digest& key, const std::string& realm,
                          const std::string& authid, std::string_view model) {
  std::vector<std::string_view> characters;
  for (size_t at = 0; at < model.size();) {
    size_t length = 1;
    while (at + length < model.size() &&
           (static_cast<unsigned char>(model[at + length]) & 0xC0) == 0x80) {
      ++length;
    }
    characters.push_back(model.substr(at, length));
    at += length;
  }
  // One uniform index below i + 1 for each i from the end: 8 made-up bytes each, taken modulo
  // (the bias of 2^64 modulo a salt's length is far below anything a client could measure).
  const bauth::Bytes bytes = made_up_bytes(key, realm, authid, 8 * characters.size());
  for (size_t i = characters.size(); i > 1; --i) {
    uint64_t value = 0;
    for (size_t b = 0; b < 8; ++b) value = (value << 8) | bytes[8 * (i - 1) + b];
    std::swap(characters[i - 1], characters[static_cast<size_t>(value % i)]);
  }
  std::string out;
  out.reserve(model.size());
  for (const std::string_view character : characters) out += character;
  return out;
}

std::string utc_timestamp() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  const auto millis =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[40];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &utc);
  char out[48];
  std::snprintf(out, sizeof out, "%s.%03dZ", text, static_cast<int>(millis));
  return out;
}

}  // namespace

std::string_view fail_reason_label(FailReason reason) {
  switch (reason) {
    case FailReason::no_such_realm:
      return "no_such_realm";
    case FailReason::no_auth_method:
      return "no_auth_method";
    case FailReason::bad_credentials:
      return "bad_credentials";
    case FailReason::malformed:
      return "malformed";
  }
  return "?";
}

std::string_view method_slot_label(int slot) {
  if (slot >= 0 && slot < bauth::kMethods) {
    return slot == static_cast<int>(Method::scram) ? "scram"
                                                   : bauth::method_name(static_cast<Method>(slot));
  }
  return "anonymous";
}

Step Handshake::refuse(FailReason reason, int method_slot, std::string message) {
  // A mock challenge's credentials were never anyone's, yet its refusal is a wrong credential's
  // everywhere, the counters included (handshake.h).
  Step step;
  step.kind = Step::Kind::abort;
  step.fail = reason;
  step.method_slot = method_slot;
  switch (reason) {
    case FailReason::no_such_realm:
      step.reason = "wamp.error.no_such_realm";
      break;
    case FailReason::no_auth_method:
      step.reason = "wamp.error.no_auth_method";
      break;
    case FailReason::bad_credentials:
      step.reason = kNotAuthorized;
      break;
    case FailReason::malformed:
      step.reason = kAuthenticationFailed;
      break;
  }
  step.message = Json{{"message", std::move(message)}};
  principal_ = nullptr;
  return step;
}

Step Handshake::welcome(const Principal& principal, Json authextra) {
  Step step;
  step.kind = Step::Kind::welcome;
  step.role = principal.role;
  step.method_slot = static_cast<int>(principal.method);
  step.message = Json{{"authid", principal.authid},
                      {"authrole", principal.role->name},
                      {"authmethod", announced_method_},
                      {"authprovider", "static"}};
  if (!authextra.is_null()) step.message["authextra"] = std::move(authextra);
  principal_ = nullptr;
  return step;
}

Step Handshake::hello(const std::string& realm, const Json& details, uint64_t session_id) {
  principal_ = nullptr;
  if (config_ == nullptr) {
    Step step;
    step.kind = Step::Kind::welcome;
    step.message = Json{{"authid", "anonymous"},
                        {"authrole", "anonymous"},
                        {"authmethod", "anonymous"},
                        {"authprovider", "static"}};
    return step;
  }
  const RealmAuth* realm_auth = config_->realm(realm);
  if (realm_auth == nullptr) {
    return refuse(FailReason::no_such_realm, offered_method_slot(details),
                  "the realm '" + realm + "' is not in the router's auth config");
  }
  realm_ = realm;
  const std::string authid = string_at(details, "authid");
  const auto methods = details.find("authmethods");
  const Json authextra =
      details.contains("authextra") ? details["authextra"] : Json(Json::value_t::object);
  int known_slot = -1;
  // The method challenged: the first offered, well formed, that the authid has (methods_for:
  // a made-up set for an authid the realm lacks) -- the principal's challenge, or a mock one
  // where there is no principal (an unknown authid, a cryptosign key that is not the
  // principal's). Else the first offered, well formed, that can be mocked (WAMP-CRA only where
  // the realm has a WAMP-CRA principal to copy the role from), mocked. A method whose HELLO
  // part is malformed is passed over, and refused only when no other is left. None of this
  // depends on whether the authid exists, only on what the client offered and the realm.
  const std::string* const like = model_authid(*config_, *realm_auth, authid);
  const uint8_t has = methods_for(*realm_auth, authid, like);
  std::optional<Method> fallback;
  std::string fallback_name;
  std::optional<Method> malformed_method;
  if (methods != details.end() && methods->is_array()) {
    for (const Json& offered : *methods) {
      if (!offered.is_string()) continue;
      const std::string name = offered.get<std::string>();
      const auto method = bauth::method_from_name(name);
      if (!method) continue;
      if (known_slot < 0) known_slot = static_cast<int>(*method);
      std::optional<bauth::Bytes> pubkey;
      if (*method == Method::scram) {
        const std::string nonce = string_at(authextra, "nonce");
        if (nonce.empty() || !bauth::from_base64(nonce)) {
          if (!malformed_method) malformed_method = method;
          continue;
        }
      } else if (*method == Method::cryptosign) {
        pubkey = bauth::from_hex(string_at(authextra, "pubkey"));
        if (!pubkey || pubkey->size() != 32) {
          if (!malformed_method) malformed_method = method;
          continue;
        }
      }
      if ((has & method_bit(*method)) != 0) {
        const Principal* principal = nullptr;
        if (*method == Method::cryptosign) {
          principal = authid.empty() ? realm_auth->find_pubkey(*pubkey)
                                     : realm_auth->find(Method::cryptosign, authid);
          if (principal != nullptr &&
              !std::equal(principal->pubkey.begin(), principal->pubkey.end(), pubkey->begin())) {
            principal = nullptr;
          }
        } else {
          principal = realm_auth->find(*method, authid);
        }
        if (principal != nullptr) return challenge(*principal, details, session_id, name);
        return mock_challenge(*realm_auth, *method, authid, like, details, session_id, name);
      }
      if (!fallback &&
          (*method != Method::wampcra ||
           model_of(*config_, *realm_auth, Method::wampcra, authid, like) != nullptr)) {
        fallback = method;
        fallback_name = name;
      }
    }
  }
  if (known_slot < 0) {
    return refuse(FailReason::no_auth_method, kAnonymousSlot,
                  "none of HELLO.Details.authmethods is one the realm '" + realm +
                      "' accepts (ticket, wampcra, wamp-scram, cryptosign)");
  }
  if (fallback) {
    return mock_challenge(*realm_auth, *fallback, authid, like, details, session_id, fallback_name);
  }
  if (malformed_method) {
    return refuse(FailReason::malformed, static_cast<int>(*malformed_method),
                  *malformed_method == Method::scram
                      ? "WAMP-SCRAM needs HELLO.Details.authextra.nonce (base64)"
                      : "cryptosign needs HELLO.Details.authextra.pubkey (64 hex digits)");
  }
  // Only WAMP-CRA offered, in a realm without a WAMP-CRA principal (a mock challenge would have
  // no role to copy): the same for every authid.
  return refuse(FailReason::no_auth_method, known_slot,
                "the realm '" + realm + "' has no WAMP-CRA principal, the only method offered");
}

Step Handshake::mock_challenge(const RealmAuth& realm, Method method, const std::string& authid,
                               const std::string* like, const Json& details, uint64_t session_id,
                               std::string_view announced) {
  Principal& mock = mock_.emplace();
  mock.authid = authid;
  mock.method = method;
  const Principal* model = model_of(*config_, realm, method, authid, like);
  switch (method) {
    case Method::ticket:
      mock.ticket = bauth::to_base64(bauth::random_bytes(32));
      break;
    case Method::wampcra: {
      // The role, and whether (and how) the secret is salted, of one of the realm's WAMP-CRA
      // principals (hello() mocks WAMP-CRA only where there is one); its salt's characters in
      // an order that is always the same for this authid; a key no signature matches.
      mock.role = model->role;
      mock.cra_key = bauth::to_base64(bauth::random_bytes(32));
      mock.cra_salted = model->cra_salted;
      if (mock.cra_salted) {
        mock.cra_salt = shuffled_salt(use_key(config_->mock_key, "wampcra salt"), realm.name,
                                      authid, model->cra_salt);
        mock.cra_iterations = model->cra_iterations;
        mock.cra_keylen = model->cra_keylen;
      }
      break;
    }
    case Method::scram: {
      // The KDF parameters and salt length of one of the realm's WAMP-SCRAM principals, else
      // the defaults and 16 bytes (the spec's advice for nonces).
      size_t salt_bytes = 16;
      if (model != nullptr) {
        mock.scram = model->scram;
        if (auto salt = bauth::from_base64(model->scram.salt); salt && !salt->empty()) {
          salt_bytes = salt->size();
        }
      }
      mock.scram.salt =
          bauth::to_base64(made_up_bytes(config_->mock_key, realm.name, authid, salt_bytes));
      const bauth::Bytes key = bauth::random_bytes(mock.scram_spec.stored_key.size());
      std::copy(key.begin(), key.end(), mock.scram_spec.stored_key.begin());
      mock.scram_autobahn = mock.scram_spec;
      break;
    }
    case Method::cryptosign: {
      const bauth::Bytes key = bauth::random_bytes(mock.pubkey.size());
      std::copy(key.begin(), key.end(), mock.pubkey.begin());
      break;
    }
  }
  return challenge(mock, details, session_id, announced);
}

Step Handshake::challenge(const Principal& principal, const Json& details, uint64_t session_id,
                          std::string_view announced) {
  announced_method_ = std::string(announced);
  Step step;
  step.kind = Step::Kind::challenge;
  step.method_slot = static_cast<int>(principal.method);
  Json extra = Json::object();
  switch (principal.method) {
    case Method::ticket:
      break;
    case Method::wampcra: {
      const Json challenge{{"authid", principal.authid},
                           {"authrole", principal.role->name},
                           {"authmethod", "wampcra"},
                           {"authprovider", "static"},
                           {"nonce", bauth::to_base64(bauth::random_bytes(24))},
                           {"timestamp", utc_timestamp()},
                           {"session", session_id}};
      cra_challenge_ = challenge.dump();
      extra["challenge"] = cra_challenge_;
      if (principal.cra_salted) {
        extra["salt"] = principal.cra_salt;
        extra["iterations"] = principal.cra_iterations;
        extra["keylen"] = principal.cra_keylen;
      }
      break;
    }
    case Method::scram: {
      const Json authextra = details.contains("authextra") ? details["authextra"] : Json();
      scram_client_nonce_ = string_at(authextra, "nonce");  // base64: hello() checked it
      scram_dialect_ =
          announced == "scram" ? bauth::ScramDialect::autobahn : bauth::ScramDialect::spec;
      scram_nonce_ = scram_client_nonce_ + bauth::to_base64(bauth::random_bytes(16));
      extra["nonce"] = scram_nonce_;
      extra["salt"] = principal.scram.salt;
      const bool argon = principal.scram.kdf == bauth::Kdf::argon2id;
      extra["kdf"] = argon && scram_dialect_ == bauth::ScramDialect::autobahn
                         ? std::string("argon2id-13")
                         : std::string(bauth::kdf_name(principal.scram.kdf));
      extra["iterations"] = principal.scram.iterations;
      if (argon) extra["memory"] = principal.scram.memory_kib;
      break;
    }
    case Method::cryptosign: {
      cryptosign_challenge_ = bauth::random_bytes(32);
      extra["challenge"] = bauth::to_hex(cryptosign_challenge_);
      break;
    }
  }
  principal_ = &principal;
  step.message = Json::array({4, announced_method_, std::move(extra)});
  return step;
}

Step Handshake::authenticate(const Json& signature, const Json& extra) {
  if (principal_ == nullptr) {
    return refuse(FailReason::malformed, kAnonymousSlot, "AUTHENTICATE without a CHALLENGE");
  }
  const Principal& principal = *principal_;
  const int slot = static_cast<int>(principal.method);
  const std::string text = signature_text(signature);
  switch (principal.method) {
    case Method::ticket:
      if (!bauth::equal_constant_time(bauth::as_bytes(text), bauth::as_bytes(principal.ticket))) {
        return refuse(FailReason::bad_credentials, slot, "the ticket is not valid");
      }
      return welcome(principal, Json());
    case Method::wampcra: {
      const std::string expected = bauth::cra_signature(principal.cra_key, cra_challenge_);
      if (!bauth::equal_constant_time(bauth::as_bytes(text), bauth::as_bytes(expected))) {
        return refuse(FailReason::bad_credentials, slot, "the WAMP-CRA signature is not valid");
      }
      return welcome(principal, Json());
    }
    case Method::scram: {
      const std::string nonce = string_at(extra, "nonce");
      // Autobahn|Python 22.7 sends no Extra; the spec's clients must repeat the nonce.
      if (nonce != scram_nonce_ &&
          !(nonce.empty() && scram_dialect_ == bauth::ScramDialect::autobahn)) {
        return refuse(FailReason::malformed, slot,
                      "AUTHENTICATE.Extra.nonce is not the nonce of the CHALLENGE");
      }
      const auto proof = bauth::from_base64(text);
      if (!proof || proof->size() != 32) {
        return refuse(FailReason::malformed, slot,
                      "the WAMP-SCRAM proof is not 32 bytes of base64");
      }
      const bauth::ScramKeys& keys = scram_dialect_ == bauth::ScramDialect::spec
                                         ? principal.scram_spec
                                         : principal.scram_autobahn;
      const std::string auth_message = bauth::scram_auth_message(
          principal.authid, scram_client_nonce_, scram_nonce_, principal.scram, scram_dialect_);
      if (!bauth::scram_proof_valid(keys.stored_key, auth_message, *proof)) {
        return refuse(FailReason::bad_credentials, slot, "the WAMP-SCRAM proof is not valid");
      }
      const std::string verifier =
          bauth::to_base64(bauth::scram_server_signature(keys.server_key, auth_message));
      return welcome(principal, Json{{"verifier", verifier}, {"scram_server_signature", verifier}});
    }
    case Method::cryptosign: {
      const auto bytes = bauth::from_hex(text);
      if (!bytes || (bytes->size() != 64 && bytes->size() != 96)) {
        return refuse(
            FailReason::malformed, slot,
            "the cryptosign signature must be 64 bytes (or 96 with the challenge) in hex");
      }
      if (bytes->size() == 96 && !std::equal(cryptosign_challenge_.begin(),
                                             cryptosign_challenge_.end(), bytes->begin() + 64)) {
        return refuse(FailReason::bad_credentials, slot, "the signed message is not the challenge");
      }
      const std::span<const uint8_t> sig(bytes->data(), 64);
      if (!bauth::ed25519_verify(principal.pubkey, sig, cryptosign_challenge_)) {
        return refuse(FailReason::bad_credentials, slot, "the cryptosign signature is not valid");
      }
      return welcome(principal, Json());
    }
  }
  return refuse(FailReason::malformed, slot, "unknown method");
}

}  // namespace benchgate::router::wamp::auth
