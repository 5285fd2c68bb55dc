// A run's throwaway CA and server certificate (see run_certificate.h).
#include "orchestrator/tls/run_certificate.h"

#include <fcntl.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>

namespace benchgate::tls {
namespace {

struct Free {
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
  void operator()(X509* p) const { X509_free(p); }
  void operator()(BIO* p) const { BIO_free(p); }
  void operator()(X509_EXTENSION* p) const { X509_EXTENSION_free(p); }
};
template <typename T>
using Owned = std::unique_ptr<T, Free>;

std::string openssl_error(const char* step) {
  std::string text = std::string("making the run's TLS certificate: ") + step;
  if (const unsigned long code = ERR_get_error()) {
    char line[256];
    ERR_error_string_n(code, line, sizeof(line));
    text += ": ";
    text += line;
  }
  ERR_clear_error();
  return text;
}

bool add_extension(X509* cert, X509* issuer, int nid, const char* value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  Owned<X509_EXTENSION> ext(X509V3_EXT_conf_nid(nullptr, &ctx, nid, value));
  return ext && X509_add_ext(cert, ext.get(), -1) == 1;
}

// A certificate for `key` named `common_name`, valid from an hour ago for a day, with a random
// serial; signed later.
Owned<X509> new_certificate(EVP_PKEY* key, const char* common_name) {
  Owned<X509> cert(X509_new());
  if (!cert) return nullptr;
  unsigned char serial[16];
  if (RAND_bytes(serial, sizeof(serial)) != 1) return nullptr;
  serial[0] &= 0x7f;  // positive
  BIGNUM* bn = BN_bin2bn(serial, sizeof(serial), nullptr);
  if (bn == nullptr) return nullptr;
  const bool serial_set = BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert.get())) != nullptr;
  BN_free(bn);
  if (!serial_set || X509_set_version(cert.get(), 2) != 1 ||
      X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600) == nullptr ||
      X509_gmtime_adj(X509_getm_notAfter(cert.get()), 24 * 3600) == nullptr ||
      X509_set_pubkey(cert.get(), key) != 1) {
    return nullptr;
  }
  X509_NAME* name = X509_get_subject_name(cert.get());
  if (X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC,
                                 reinterpret_cast<const unsigned char*>("benchgate run"), -1, -1,
                                 0) != 1 ||
      X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                                 reinterpret_cast<const unsigned char*>(common_name), -1, -1,
                                 0) != 1) {
    return nullptr;
  }
  return cert;
}

std::string to_pem(X509* cert) {
  Owned<BIO> bio(BIO_new(BIO_s_mem()));
  if (!bio || PEM_write_bio_X509(bio.get(), cert) != 1) return {};
  char* data = nullptr;
  const long size = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<size_t>(size));
}

std::string key_to_pem(EVP_PKEY* key) {
  Owned<BIO> bio(BIO_new(BIO_s_mem()));
  if (!bio ||
      PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr) != 1) {
    return {};
  }
  char* data = nullptr;
  const long size = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<size_t>(size));
}

Expected<void> write_file(const std::string& path, const std::string& text, mode_t mode) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (fd < 0) return Error{"cannot write " + path + ": " + std::strerror(errno)};
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const std::string reason = std::strerror(errno);
      ::close(fd);
      return Error{"cannot write " + path + ": " + reason};
    }
    done += static_cast<size_t>(n);
  }
  if (::close(fd) != 0) return Error{"cannot write " + path + ": " + std::strerror(errno)};
  return {};
}

}  // namespace

Expected<RunCertificate> make_run_certificate(const std::string& dir) {
  ERR_clear_error();
  Owned<EVP_PKEY> ca_key(EVP_EC_gen("P-256"));
  Owned<EVP_PKEY> server_key(EVP_EC_gen("P-256"));
  if (!ca_key || !server_key) return Error{openssl_error("generating EC P-256 keys")};

  Owned<X509> ca = new_certificate(ca_key.get(), "benchgate run CA");
  if (!ca || X509_set_issuer_name(ca.get(), X509_get_subject_name(ca.get())) != 1 ||
      !add_extension(ca.get(), ca.get(), NID_basic_constraints, "critical,CA:TRUE,pathlen:0") ||
      !add_extension(ca.get(), ca.get(), NID_key_usage, "critical,keyCertSign,cRLSign") ||
      !add_extension(ca.get(), ca.get(), NID_subject_key_identifier, "hash") ||
      X509_sign(ca.get(), ca_key.get(), EVP_sha256()) == 0) {
    return Error{openssl_error("the CA certificate")};
  }

  Owned<X509> server = new_certificate(server_key.get(), "127.0.0.1");
  if (!server || X509_set_issuer_name(server.get(), X509_get_subject_name(ca.get())) != 1 ||
      !add_extension(server.get(), ca.get(), NID_basic_constraints, "critical,CA:FALSE") ||
      !add_extension(server.get(), ca.get(), NID_key_usage, "critical,digitalSignature") ||
      !add_extension(server.get(), ca.get(), NID_ext_key_usage, "serverAuth") ||
      !add_extension(server.get(), ca.get(), NID_subject_alt_name, "IP:127.0.0.1,DNS:localhost") ||
      !add_extension(server.get(), ca.get(), NID_authority_key_identifier, "keyid:always") ||
      X509_sign(server.get(), ca_key.get(), EVP_sha256()) == 0) {
    return Error{openssl_error("the server certificate")};
  }

  RunCertificate out;
  out.ca_pem = to_pem(ca.get());
  const std::string server_pem = to_pem(server.get());
  const std::string key_pem = key_to_pem(server_key.get());
  if (out.ca_pem.empty() || server_pem.empty() || key_pem.empty()) {
    return Error{openssl_error("writing PEM")};
  }
  out.cert_file = dir + "/router-cert.pem";
  out.key_file = dir + "/router-key.pem";
  if (auto ok = write_file(out.cert_file, server_pem, 0644); !ok) return ok.error();
  if (auto ok = write_file(out.key_file, key_pem, 0600); !ok) return ok.error();
  return out;
}

}  // namespace benchgate::tls
