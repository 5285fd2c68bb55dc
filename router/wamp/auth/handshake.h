// The authentication of one WAMP session in the router, as a plain state machine the session
// drives (router/wamp/session.cc): HELLO -> WELCOME (anonymous, without --auth-config), or
// HELLO -> CHALLENGE -> AUTHENTICATE -> WELCOME | ABORT for ticket, WAMP-CRA, WAMP-SCRAM and
// WAMP-cryptosign against the principals of --auth-config. No I/O, no clock: unit tests and
// the fuzz target drive it with messages.
//
// A client must not learn which authids exist. An authid (or public key) the realm has no
// principal for gets a CHALLENGE as a known one would, and the ABORT after AUTHENTICATE with
// the URI and message a wrong credential gets (the WAMP-SCRAM spec's mock challenge, for every
// method). Of several methods offered, the one challenged is picked by a rule that does not ask
// whether the authid exists: an unknown authid is treated as one of the realm's authids, the
// same one on every attempt (hello() in handshake.cc), with its methods. What a mock CHALLENGE
// carries is made up from an HMAC keyed by the auth config's hash (the same on every attempt: a
// WAMP-SCRAM salt, or a WAMP-CRA salt that is the model's shuffled) or copied from
// that authid's principal of the method (WAMP-CRA's role and salt settings, the KDF
// parameters), so that the methods and settings shown are those of one real authid; for a
// method it is challenged with though it lacks it, from one of the realm's principals of that
// method. Nonces and challenges are random, as for a known authid. The refusal is counted as a
// wrong credential's (bad_credentials): the counters are exported (/metrics, the control
// endpoint), and a label of their own would tell a reader which authids exist.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "router/wamp/auth/auth_config.h"

namespace benchgate::router::wamp::auth {

using Json = nlohmann::json;

// Why a session was refused (the label of the router's auth failure counters), each with an
// ABORT reason of its own: a reason tells a reader of the counters what it told the client, no
// more (whether an authid exists is not one of them).
enum class FailReason : uint8_t {
  // wamp.error.no_such_realm: the realm is not in --auth-config. Counted under the first method
  // HELLO offered that the router knows (ticket, wampcra, scram, cryptosign), else anonymous.
  no_such_realm = 0,
  // wamp.error.no_auth_method: none of HELLO's authmethods is one the router can challenge in
  // the realm (no method it knows, or WAMP-CRA alone in a realm without a WAMP-CRA principal),
  // whatever the authid.
  no_auth_method = 1,
  // wamp.error.not_authorized: AUTHENTICATE did not prove the credential: a wrong ticket,
  // signature or proof, or an authid (or public key) the realm has no principal for, which was
  // challenged as a known one is (the two are one to the client, and so to the counters).
  bad_credentials = 2,
  // wamp.error.authentication_failed: AUTHENTICATE, or HELLO.Details.authextra, not as the
  // method needs.
  malformed = 3,
};
inline constexpr int kFailReasons = 4;
std::string_view fail_reason_label(FailReason reason);
// The slot for counting per method: the four methods, then anonymous.
inline constexpr int kMethodSlots = benchgate::auth::kMethods + 1;
inline constexpr int kAnonymousSlot = benchgate::auth::kMethods;
std::string_view method_slot_label(int slot);  // "ticket" ... "cryptosign", "anonymous"

struct Step {
  enum class Kind : uint8_t { welcome, challenge, abort };
  Kind kind = Kind::abort;
  Json message;  // the WELCOME.Details, the CHALLENGE or the ABORT to send (without the id)
  // welcome: the role deciding permissions (nullptr: anonymous without --auth-config, may do
  // everything).
  const Role* role = nullptr;
  // abort: the reason URI and the counter labels.
  std::string reason;
  int method_slot = kAnonymousSlot;
  FailReason fail = FailReason::malformed;
};

class Handshake {
 public:
  // `config` nullptr: every session joins anonymously (the router without --auth-config).
  explicit Handshake(const AuthConfig* config) : config_(config) {}

  // HELLO.Realm and HELLO.Details; `session_id` goes into the WAMP-CRA challenge.
  Step hello(const std::string& realm, const Json& details, uint64_t session_id);
  // AUTHENTICATE.Signature (string, or binary holding the text) and AUTHENTICATE.Extra.
  Step authenticate(const Json& signature, const Json& extra);
  bool awaiting_authenticate() const { return principal_ != nullptr; }

 private:
  Step challenge(const Principal& principal, const Json& details, uint64_t session_id,
                 std::string_view announced);
  // The CHALLENGE for an authid (or key) the realm does not have, offered with `method`:
  // against a principal of made-up credentials no AUTHENTICATE can match. `like`: the realm
  // authid an unknown authid is treated as (nullptr for a known or empty one).
  Step mock_challenge(const RealmAuth& realm, benchgate::auth::Method method,
                      const std::string& authid, const std::string* like, const Json& details,
                      uint64_t session_id, std::string_view announced);
  Step welcome(const Principal& principal, Json authextra);
  Step refuse(FailReason reason, int method_slot, std::string message);

  const AuthConfig* config_;
  std::string realm_;
  const Principal* principal_ = nullptr;
  // The made-up principal of a mock challenge (principal_ points to it then).
  std::optional<Principal> mock_;
  // What the challenge committed to.
  std::string cra_challenge_;
  std::string scram_client_nonce_;
  std::string scram_nonce_;
  benchgate::auth::ScramDialect scram_dialect_ = benchgate::auth::ScramDialect::spec;
  std::string announced_method_;
  benchgate::auth::Bytes cryptosign_challenge_;
};

}  // namespace benchgate::router::wamp::auth
