// A certificate and key for 127.0.0.1 in a temporary folder, for the router's TLS tests
// (tls_listener_test.cc, tls_stream_test.cc).
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace benchgate::router::tls {

// A self-signed EC P-256 certificate for 127.0.0.1, made for these tests with
// `openssl req -x509 -newkey ec -days 36500` (nothing trusts it outside them).
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

class TempFiles {
 public:
  TempFiles() {
    dir_ =
        std::filesystem::temp_directory_path() / ("router_tls_test_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    write("cert.pem", std::string(kCertPem) + "\n");
    write("key.pem", std::string(kKeyPem) + "\n");
    write("garbage.pem", "not a pem file\n");
  }
  ~TempFiles() { std::filesystem::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  void write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
  }

 private:
  std::filesystem::path dir_;
};

}  // namespace benchgate::router::tls
