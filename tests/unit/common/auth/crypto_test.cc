// common/auth/crypto.h against published test vectors.
#include "common/auth/crypto.h"

#include <gtest/gtest.h>

namespace benchgate::auth {
namespace {

std::string hex(std::span<const uint8_t> bytes) { return to_hex(bytes); }

Bytes unhex(std::string_view text) {
  auto bytes = from_hex(text);
  EXPECT_TRUE(bytes.has_value()) << text;
  return bytes.value_or(Bytes{});
}

TEST(Crypto, HmacSha256MatchesRfc4231Case2) {
  EXPECT_EQ(hex(hmac_sha256(as_bytes("Jefe"), as_bytes("what do ya want for nothing?"))),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

TEST(Crypto, Sha256OfAbc) {
  EXPECT_EQ(hex(sha256(as_bytes("abc"))),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Crypto, Pbkdf2Sha256MatchesRfc7914) {
  EXPECT_EQ(hex(pbkdf2_sha256(as_bytes("passwd"), as_bytes("salt"), 1, 64)),
            "55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc"
            "49ca9cccf179b645991664b39d77ef317c71b845b1e30bd509112041d3a19783");
}

TEST(Crypto, Pbkdf2Sha256MatchesKnownIterationCounts) {
  EXPECT_EQ(hex(pbkdf2_sha256(as_bytes("password"), as_bytes("salt"), 1, 32)),
            "120fb6cffcf8b32c43e7225256c4f837a86548c92ccc35480805987cb70be17b");
  EXPECT_EQ(hex(pbkdf2_sha256(as_bytes("password"), as_bytes("salt"), 4096, 32)),
            "c5e478d59288c841aa530db6845c4c8d962893a001ce4e11a4963873aa98134a");
}

TEST(Crypto, Pbkdf2RefusesParametersOutOfRange) {
  EXPECT_TRUE(pbkdf2_sha256(as_bytes("p"), as_bytes("s"), 0, 32).empty());
  EXPECT_TRUE(pbkdf2_sha256(as_bytes("p"), as_bytes("s"), 1, 0).empty());
}

TEST(Crypto, Argon2idMatchesArgon2Cffi) {
  // argon2.low_level.hash_secret_raw(b"dave-password", b"salt-for-dave", time_cost=2,
  // memory_cost=1024, parallelism=1, hash_len=32, type=Type.ID, version=19)
  const auto hash = argon2id(as_bytes("dave-password"), as_bytes("salt-for-dave"), 2, 1024);
  ASSERT_TRUE(hash.has_value());
  EXPECT_EQ(hex(*hash), "0c6de6012ff8eb22aa05f8f9192aaba9be12e24f0daa78c27bbd6a14afc114ff");
  EXPECT_FALSE(argon2id(as_bytes("p"), as_bytes("short"), 2, 1024).has_value());  // salt < 8
}

TEST(Crypto, Ed25519MatchesRfc8032Test1) {
  const Bytes seed = unhex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60");
  const auto public_key = ed25519_public_key(seed);
  ASSERT_TRUE(public_key.has_value());
  EXPECT_EQ(hex(*public_key), "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a");
  const auto signature = ed25519_sign(seed, {});
  ASSERT_TRUE(signature.has_value());
  EXPECT_EQ(hex(*signature),
            "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bac"
            "c61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b");
  EXPECT_TRUE(ed25519_verify(*public_key, *signature, {}));
  const uint8_t other = 1;
  EXPECT_FALSE(ed25519_verify(*public_key, *signature, std::span<const uint8_t>(&other, 1)));
}

TEST(Crypto, HexAndBase64RoundTripAndRefuseGarbage) {
  EXPECT_EQ(hex(unhex("00ff10AB")), "00ff10ab");
  EXPECT_FALSE(from_hex("abc").has_value());
  EXPECT_FALSE(from_hex("zz").has_value());
  EXPECT_EQ(to_base64(as_bytes("n,,")), "biws");
  EXPECT_FALSE(from_base64("not base64!").has_value());
  EXPECT_EQ(random_bytes(16).size(), 16u);
  EXPECT_NE(random_bytes(16), random_bytes(16));
}

TEST(Crypto, ConstantTimeCompare) {
  EXPECT_TRUE(equal_constant_time(as_bytes("abc"), as_bytes("abc")));
  EXPECT_FALSE(equal_constant_time(as_bytes("abc"), as_bytes("abd")));
  EXPECT_FALSE(equal_constant_time(as_bytes("abc"), as_bytes("ab")));
}

}  // namespace
}  // namespace benchgate::auth
