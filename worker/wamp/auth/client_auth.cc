// The worker's WAMP authentication (see client_auth.h).
#include "worker/wamp/auth/client_auth.h"

namespace benchgate::worker::wamp {
namespace bauth = benchgate::auth;
namespace {

std::string string_at(const nlohmann::json& object, const char* key) {
  if (!object.is_object()) return {};
  const auto found = object.find(key);
  return found != object.end() && found->is_string() ? found->get<std::string>() : std::string();
}

std::optional<uint32_t> count_at(const nlohmann::json& object, const char* key) {
  if (!object.is_object()) return std::nullopt;
  const auto found = object.find(key);
  if (found == object.end() || !found->is_number_unsigned()) return std::nullopt;
  const uint64_t value = found->get<uint64_t>();
  if (value < 1 || value > 0xffffffffu) return std::nullopt;
  return static_cast<uint32_t>(value);
}

}  // namespace

ClientAuth::ClientAuth(const WampRequestSpec::Auth& auth) : auth_(auth) {
  if (auth.method.empty()) return;
  method_ = bauth::method_from_name(auth.method);
  if (method_ == bauth::Method::cryptosign) {
    if (auto seed = bauth::from_hex(auth.secret)) seed_ = std::move(*seed);
  }
}

void ClientAuth::add_to_hello(Json& details) {
  if (!method_) return;
  details["authmethods"] = Json::array({std::string(bauth::method_name(*method_))});
  details["authid"] = auth_.authid;
  if (*method_ == bauth::Method::scram) {
    client_nonce_ = bauth::to_base64(bauth::random_bytes(16));
    details["authextra"] = Json{{"nonce", client_nonce_}, {"channel_binding", nullptr}};
  } else if (*method_ == bauth::Method::cryptosign) {
    const auto pubkey = bauth::ed25519_public_key(seed_);
    details["authextra"] = Json{{"pubkey", pubkey ? bauth::to_hex(*pubkey) : std::string()}};
  }
}

std::optional<nlohmann::json> ClientAuth::answer(const Json& challenge) {
  if (!method_ || challenge.size() < 3 || !challenge[1].is_string() || !challenge[2].is_object()) {
    return std::nullopt;
  }
  const auto method = bauth::method_from_name(challenge[1].get<std::string>());
  if (method != method_) return std::nullopt;
  const Json& extra = challenge[2];
  const auto reply = [](std::string signature, Json reply_extra = Json::object()) {
    return Json::array({5, std::move(signature), std::move(reply_extra)});
  };
  switch (*method_) {
    case bauth::Method::ticket:
      return reply(auth_.secret);
    case bauth::Method::wampcra: {
      const std::string text = string_at(extra, "challenge");
      if (text.empty()) return std::nullopt;
      if (!extra.contains("salt")) return reply(bauth::cra_signature(auth_.secret, text));
      const std::string salt = string_at(extra, "salt");
      const auto iterations = count_at(extra, "iterations");
      const auto keylen = count_at(extra, "keylen");
      if (!iterations || !keylen) return std::nullopt;
      const std::string params =
          salt + "\n" + std::to_string(*iterations) + "\n" + std::to_string(*keylen);
      if (params != cra_params_ || cra_key_.empty()) {
        cra_key_ = bauth::cra_derive_key(auth_.secret, salt, *iterations, *keylen);
        cra_params_ = params;
      }
      if (cra_key_.empty()) return std::nullopt;
      return reply(bauth::cra_signature(cra_key_, text));
    }
    case bauth::Method::scram: {
      const std::string nonce = string_at(extra, "nonce");
      if (client_nonce_.empty() || !nonce.starts_with(client_nonce_)) return std::nullopt;
      bauth::ScramParams params;
      const auto kdf = bauth::kdf_from_name(string_at(extra, "kdf"));
      const auto iterations = count_at(extra, "iterations");
      if (!kdf || !iterations) return std::nullopt;
      params.kdf = *kdf;
      params.salt = string_at(extra, "salt");
      params.iterations = *iterations;
      if (params.kdf == bauth::Kdf::argon2id) {
        const auto memory = count_at(extra, "memory");
        if (!memory) return std::nullopt;
        params.memory_kib = *memory;
      }
      const std::string key = std::string(bauth::kdf_name(params.kdf)) + "\n" + params.salt + "\n" +
                              std::to_string(params.iterations) + "\n" +
                              std::to_string(params.memory_kib);
      if (key != scram_params_) {
        const auto salted =
            bauth::scram_salted_password(auth_.secret, params, bauth::ScramDialect::spec);
        if (!salted) return std::nullopt;
        scram_keys_ = bauth::scram_keys(*salted);
        scram_params_ = key;
      }
      auth_message_ = bauth::scram_auth_message(auth_.authid, client_nonce_, nonce, params,
                                                bauth::ScramDialect::spec);
      const auto proof = bauth::scram_client_proof(scram_keys_, auth_message_);
      return reply(bauth::to_base64(proof),
                   Json{{"nonce", nonce}, {"channel_binding", nullptr}, {"cbind_data", nullptr}});
    }
    case bauth::Method::cryptosign: {
      const auto challenge_bytes = bauth::from_hex(string_at(extra, "challenge"));
      if (!challenge_bytes || challenge_bytes->size() != 32) return std::nullopt;
      const auto signature = bauth::ed25519_sign(seed_, *challenge_bytes);
      if (!signature) return std::nullopt;
      return reply(bauth::to_hex(*signature) + bauth::to_hex(*challenge_bytes));
    }
  }
  return std::nullopt;
}

bool ClientAuth::welcome_ok(const Json& details) const {
  if (method_ != bauth::Method::scram) return true;
  const Json authextra =
      details.is_object() && details.contains("authextra") ? details["authextra"] : Json::object();
  const std::string verifier = string_at(authextra, "verifier");
  const std::string expected =
      bauth::to_base64(bauth::scram_server_signature(scram_keys_.server_key, auth_message_));
  return bauth::equal_constant_time(bauth::as_bytes(verifier), bauth::as_bytes(expected));
}

}  // namespace benchgate::worker::wamp
