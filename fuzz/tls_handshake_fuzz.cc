// libFuzzer target: the router's TLS listener on untrusted bytes. A server connection of the
// HTTP port's context (router/tls/server_context.h: ALPN h2 and http/1.1, the ALPN selection
// callback) takes the input as the client's first flight through memory BIOs; a failed handshake is
// classified as the router counts it (router/tls/handshake_outcome.h), a completed one counted.
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include <boost/asio/ssl/error.hpp>

#include "router/metrics/tls_counters.h"
#include "router/tls/handshake_outcome.h"
#include "router/tls/server_context.h"

namespace {

using benchgate::router::tls::ServerContext;

// A self-signed EC P-256 certificate for 127.0.0.1, for this target and the unit tests only.
constexpr const char* kCertPem = R"(-----BEGIN CERTIFICATE-----
MIIBjzCCATagAwIBAgIUBA/HDZT5WP+UTM0hpt+uXYLpDmcwCgYIKoZIzj0EAwIw
FDESMBAGA1UEAwwJMTI3LjAuMC4xMCAXDTI2MTIwMTE1NTcyMVoYDzIxMjYxMTA3
MTU1NzIxWjAUMRIwEAYDVQQDDAkxMjcuMC4wLjEwWTATBgcqhkjOPQIBBggqhkjO
PQMBBwNCAASCeAiZ2RYOlgaRUYl7Rp/D9NtjMvMtBg993uYjJt2PTptHifx/kYr4
PcZUs7vK8JemCgDdGsHAAwH6LQ18tZOHo2QwYjAdBgNVHQ4EFgQUKjZJfZ8zVuR3
KLOAZb+nmPFCLGQwHwYDVR0jBBgwFoAUKjZJfZ8zVuR3KLOAZb+nmPFCLGQwDwYD
VR0TAQH/BAUwAwEB/zAPBgNVHREECDAGhwR/AAABMAoGCCqGSM49BAMCA0cAMEQC
IC6WPjjF96YLeh7PyM/vjK4fgRV66ooDQbbuf3qlKDHpAiAxItK9hMDDSehtYHUA
W4gpQafR89mjMHOvs9RABgluHg==
-----END CERTIFICATE-----)";
constexpr const char* kKeyPem = R"(-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgHpZMr+L23gM12H2u
zKI8LKWOelU+hms7uWk4kDZbKp2hRANCAASCeAiZ2RYOlgaRUYl7Rp/D9NtjMvMt
Bg993uYjJt2PTptHifx/kYr4PcZUs7vK8JemCgDdGsHAAwH6LQ18tZOH
-----END PRIVATE KEY-----)";

std::shared_ptr<ServerContext> make_context() {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("tls_handshake_fuzz_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "cert.pem") << kCertPem << "\n";
  std::ofstream(dir / "key.pem") << kKeyPem << "\n";
  benchgate::router::tls::TlsOptions options;
  options.cert_file = (dir / "cert.pem").string();
  options.key_file = (dir / "key.pem").string();
  options.min_version = TLS1_2_VERSION;
  auto context = benchgate::router::tls::make_server_context(options, {"h2", "http/1.1"});
  std::filesystem::remove_all(dir);
  if (!context) {
    std::fprintf(stderr, "tls_handshake_fuzz: %s\n", context.message().c_str());
    std::abort();
  }
  return *context;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::shared_ptr<ServerContext> context = make_context();
  static benchgate::router::metrics::TlsCounters counters;
  SSL* ssl = SSL_new(context->native_handle());
  BIO* in = BIO_new(BIO_s_mem());
  BIO* out = BIO_new(BIO_s_mem());
  SSL_set_bio(ssl, in, out);
  SSL_set_accept_state(ssl);
  if (size > 0) BIO_write(in, data, static_cast<int>(size));
  const int rc = SSL_do_handshake(ssl);
  if (rc == 1) {
    benchgate::router::tls::count_handshake(ssl, counters);
  } else if (SSL_get_error(ssl, rc) == SSL_ERROR_SSL) {
    const boost::system::error_code ec(static_cast<int>(ERR_get_error()),
                                       boost::asio::error::get_ssl_category());
    counters.count_failure(benchgate::router::tls::classify_handshake_error(ec));
  }
  ERR_clear_error();
  SSL_free(ssl);
  return 0;
}
