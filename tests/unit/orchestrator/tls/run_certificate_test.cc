// The run's CA and router certificate: the server certificate verifies against the CA alone,
// for 127.0.0.1 and localhost, as a TLS server, with its key; the key file is private; every
// run makes a new CA.
#include "orchestrator/tls/run_certificate.h"

#include <gtest/gtest.h>
#include <openssl/bio.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>

namespace benchgate::tls {
namespace {

X509* read_certificate_text(const std::string& pem) {
  BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  X509* cert = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr);
  BIO_free(bio);
  return cert;
}

X509* read_certificate_file(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return nullptr;
  X509* cert = PEM_read_X509(f, nullptr, nullptr, nullptr);
  std::fclose(f);
  return cert;
}

EVP_PKEY* read_key_file(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return nullptr;
  EVP_PKEY* key = PEM_read_PrivateKey(f, nullptr, nullptr, nullptr);
  std::fclose(f);
  return key;
}

class RunCertificateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("run_certificate_test_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
};

TEST_F(RunCertificateTest, TheServerCertificateVerifiesAgainstTheCaFor127001) {
  auto made = make_run_certificate(dir_.string());
  ASSERT_TRUE(made) << made.message();
  EXPECT_EQ(made->cert_file, (dir_ / "router-cert.pem").string());
  EXPECT_EQ(made->key_file, (dir_ / "router-key.pem").string());

  X509* ca = read_certificate_text(made->ca_pem);
  X509* server = read_certificate_file(made->cert_file);
  EVP_PKEY* key = read_key_file(made->key_file);
  ASSERT_NE(ca, nullptr);
  ASSERT_NE(server, nullptr);
  ASSERT_NE(key, nullptr);
  EXPECT_EQ(X509_check_private_key(server, key), 1);
  EXPECT_EQ(X509_check_ip_asc(server, "127.0.0.1", 0), 1);
  EXPECT_EQ(X509_check_host(server, "localhost", 0, 0, nullptr), 1);
  EXPECT_NE(X509_check_ip_asc(server, "10.0.0.1", 0), 1);
  EXPECT_EQ(X509_check_ca(ca), 1);
  EXPECT_EQ(X509_check_ca(server), 0);

  X509_STORE* store = X509_STORE_new();
  X509_STORE_add_cert(store, ca);
  X509_STORE_CTX* ctx = X509_STORE_CTX_new();
  X509_STORE_CTX_init(ctx, store, server, nullptr);
  X509_STORE_CTX_set_purpose(ctx, X509_PURPOSE_SSL_SERVER);
  EXPECT_EQ(X509_verify_cert(ctx), 1)
      << X509_verify_cert_error_string(X509_STORE_CTX_get_error(ctx));
  X509_STORE_CTX_free(ctx);
  X509_STORE_free(store);
  EVP_PKEY_free(key);
  X509_free(server);
  X509_free(ca);

  struct stat st {};
  ASSERT_EQ(::stat(made->key_file.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

TEST_F(RunCertificateTest, EveryRunMakesANewCa) {
  auto first = make_run_certificate(dir_.string());
  auto second = make_run_certificate(dir_.string());
  ASSERT_TRUE(first && second);
  EXPECT_NE(first->ca_pem, second->ca_pem);
}

TEST(RunCertificate, AFolderThatDoesNotExistIsAnError) {
  auto made = make_run_certificate("/no/such/folder");
  ASSERT_FALSE(made);
  EXPECT_EQ(made.message(),
            "cannot write /no/such/folder/router-cert.pem: No such file or directory");
}

}  // namespace
}  // namespace benchgate::tls
