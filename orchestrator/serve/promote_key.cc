// See promote_key.h.
#include "orchestrator/serve/promote_key.h"

#include <openssl/crypto.h>

#include "orchestrator/store/sha256.h"

namespace benchgate::serve {

std::string promote_key_digest(std::string_view key) { return store::sha256_hex(key); }

bool promote_key_matches(std::string_view key, const std::string& kept) {
  const std::string presented = promote_key_digest(key);
  return !kept.empty() && presented.size() == kept.size() &&
         CRYPTO_memcmp(presented.data(), kept.data(), kept.size()) == 0;
}

}  // namespace benchgate::serve
