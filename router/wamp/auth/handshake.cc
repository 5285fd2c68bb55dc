// The router's side of WAMP authentication (see handshake.h).
#include "router/wamp/auth/handshake.h"

#include <algorithm>
#include <chrono>
#include <ctime>

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

// The salt of a mock WAMP-SCRAM challenge, `bytes` long: HMAC-SHA256 under the auth config's
// key over the realm and the authid (and a block counter past 32 bytes), so that the same
// authid always gets the same salt from a router with the same file.
std::string mock_salt(const bauth::Digest& key, const std::string& realm, const std::string& authid,
                      size_t bytes) {
  std::string data = realm;
  data.push_back('\0');
  data += authid;
  data.push_back('\0');
  bauth::Bytes salt;
  for (char block = 0; salt.size() < bytes; ++block) {
    data.back() = block;
    const bauth::Digest digest = bauth::hmac_sha256(key, bauth::as_bytes(data));
    salt.insert(
        salt.end(), digest.begin(),
        digest.begin() + static_cast<std::ptrdiff_t>(std::min(digest.size(), bytes - salt.size())));
  }
  return bauth::to_base64(salt);
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
    case FailReason::unknown_authid:
      return "unknown_authid";
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
  // A mock challenge's credentials were never anyone's: counted as the unknown authid it was,
  // with the message (sent to the client) of a wrong credential.
  if (mock_ && principal_ == &*mock_ && reason == FailReason::bad_credentials) {
    reason = FailReason::unknown_authid;
  }
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
    case FailReason::unknown_authid:
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
    return refuse(FailReason::no_such_realm, kAnonymousSlot,
                  "the realm '" + realm + "' is not in the router's auth config");
  }
  realm_ = realm;
  const std::string authid = string_at(details, "authid");
  const auto methods = details.find("authmethods");
  const Json authextra =
      details.contains("authextra") ? details["authextra"] : Json(Json::value_t::object);
  int known_slot = -1;
  // The method a mock challenge uses: the first offered that is not WAMP-CRA and whose HELLO
  // part is well formed, by the name it was offered under ("scram" or "wamp-scram"). A method
  // whose HELLO part is malformed finds no principal, known or not, and is refused only when
  // no other method is left: a known authid of another method offered beside it is not told
  // apart that way.
  std::optional<Method> mocked;
  std::string mocked_name;
  std::optional<Method> malformed_method;
  if (methods != details.end() && methods->is_array()) {
    for (const Json& offered : *methods) {
      if (!offered.is_string()) continue;
      const std::string name = offered.get<std::string>();
      const auto method = bauth::method_from_name(name);
      if (!method) continue;
      if (known_slot < 0) known_slot = static_cast<int>(*method);
      const Principal* principal = nullptr;
      bool malformed = false;
      if (*method == Method::scram) {
        const std::string nonce = string_at(authextra, "nonce");
        malformed = nonce.empty() || !bauth::from_base64(nonce);
        if (!malformed) principal = realm_auth->find(*method, authid);
      } else if (*method == Method::cryptosign) {
        const auto pubkey = bauth::from_hex(string_at(authextra, "pubkey"));
        malformed = !pubkey || pubkey->size() != 32;
        if (!malformed) {
          principal = authid.empty() ? realm_auth->find_pubkey(*pubkey)
                                     : realm_auth->find(Method::cryptosign, authid);
          if (principal != nullptr &&
              !std::equal(principal->pubkey.begin(), principal->pubkey.end(), pubkey->begin())) {
            principal = nullptr;
          }
        }
      } else {
        principal = realm_auth->find(*method, authid);
      }
      if (principal != nullptr) return challenge(*principal, details, session_id, name);
      if (malformed) {
        if (!malformed_method) malformed_method = method;
      } else if (!mocked && *method != Method::wampcra) {
        mocked = method;
        mocked_name = name;
      }
    }
  }
  if (known_slot < 0) {
    return refuse(FailReason::no_auth_method, kAnonymousSlot,
                  "none of HELLO.Details.authmethods is one the realm '" + realm +
                      "' accepts (ticket, wampcra, wamp-scram, cryptosign)");
  }
  if (mocked) return mock_challenge(*realm_auth, *mocked, authid, details, session_id, mocked_name);
  if (malformed_method) {
    return refuse(FailReason::malformed, static_cast<int>(*malformed_method),
                  *malformed_method == Method::scram
                      ? "WAMP-SCRAM needs HELLO.Details.authextra.nonce (base64)"
                      : "cryptosign needs HELLO.Details.authextra.pubkey (64 hex digits)");
  }
  return refuse(FailReason::unknown_authid, known_slot,
                "no principal '" + authid + "' for the offered method in realm '" + realm + "'");
}

Step Handshake::mock_challenge(const RealmAuth& realm, Method method, const std::string& authid,
                               const Json& details, uint64_t session_id,
                               std::string_view announced) {
  Principal& mock = mock_.emplace();
  mock.authid = authid;
  mock.method = method;
  switch (method) {
    case Method::ticket:
      mock.ticket = bauth::to_base64(bauth::random_bytes(32));
      break;
    case Method::scram: {
      // The realm's own parameters and salt length where it has a WAMP-SCRAM principal, else
      // the defaults and 16 bytes (the spec's advice for nonces).
      size_t salt_bytes = 16;
      for (const Principal& known : realm.principals) {
        if (known.method == Method::scram) {
          mock.scram = known.scram;
          if (auto salt = bauth::from_base64(known.scram.salt); salt && !salt->empty()) {
            salt_bytes = salt->size();
          }
          break;
        }
      }
      mock.scram.salt = mock_salt(config_->mock_key, realm.name, authid, salt_bytes);
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
    case Method::wampcra:
      break;  // never mocked: its challenge names the principal's role
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
