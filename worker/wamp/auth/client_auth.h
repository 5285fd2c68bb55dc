// The worker's side of WAMP authentication for one session (workload key `auth`): what HELLO
// announces, the AUTHENTICATE that answers a CHALLENGE (ticket, WAMP-CRA with or without a
// salted secret, WAMP-SCRAM with PBKDF2 or Argon2id, cryptosign), and the check of the
// router's WAMP-SCRAM verifier in WELCOME. Key derivations are cached per session for the
// parameters last seen, so a reconnect costs HMACs only.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/auth/wamp_methods.h"
#include "worker/engine/workload.h"

namespace benchgate::worker::wamp {

class ClientAuth {
 public:
  using Json = nlohmann::json;

  // `auth.method` empty: anonymous (the HELLO says nothing about authentication).
  explicit ClientAuth(const WampRequestSpec::Auth& auth);

  bool anonymous() const { return !method_.has_value(); }
  // Adds authmethods, authid and authextra (a fresh WAMP-SCRAM nonce each call) to HELLO's
  // Details.
  void add_to_hello(Json& details);
  // The AUTHENTICATE message for `challenge` ([4, method, extra]); nullopt when the challenge
  // is not for this method or its parameters cannot be used.
  std::optional<Json> answer(const Json& challenge);
  // WELCOME.Details: for WAMP-SCRAM the router's verifier must be the ServerSignature.
  bool welcome_ok(const Json& details) const;

 private:
  const WampRequestSpec::Auth& auth_;
  std::optional<benchgate::auth::Method> method_;
  std::string client_nonce_;
  std::string auth_message_;
  // Caches: the WAMP-CRA key for (salt, iterations, keylen), the SCRAM keys for its params.
  std::string cra_params_;
  std::string cra_key_;
  std::string scram_params_;
  benchgate::auth::ScramKeys scram_keys_;
  std::vector<uint8_t> seed_;  // cryptosign private key
};

}  // namespace benchgate::worker::wamp
