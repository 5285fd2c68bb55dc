// SHA-256 of a byte string as lower-case hex, for fingerprints and definition hashes.
#pragma once

#include <string>
#include <string_view>

namespace benchgate::store {

std::string sha256_hex(std::string_view data);

}  // namespace benchgate::store
