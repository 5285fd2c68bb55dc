// The listeners' OpenSSL server contexts (see server_context.h).
#include "router/tls/server_context.h"

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace benchgate::router::tls {
namespace {

namespace ssl = boost::asio::ssl;

// Everything OpenSSL queued, oldest first, "; "-separated (the queue is emptied).
std::string openssl_errors() {
  std::string text;
  while (const unsigned long code = ERR_get_error()) {
    char line[256];
    ERR_error_string_n(code, line, sizeof(line));
    if (!text.empty()) text += "; ";
    text += line;
  }
  return text.empty() ? "unknown OpenSSL error" : text;
}

// The context and the ALPN list its callback reads, alive together.
struct Holder {
  ServerContext context{ssl::context::tls_server};
  std::string alpn_wire;  // length-prefixed names, the server's preference first
};

int select_alpn(SSL*, const unsigned char** out, unsigned char* out_len, const unsigned char* in,
                unsigned int in_len, void* arg) {
  const auto& wire = *static_cast<const std::string*>(arg);
  // The server's preference decides: the first of ours the client also offered.
  size_t i = 0;
  while (i < wire.size()) {
    const auto length = static_cast<unsigned char>(wire[i]);
    const auto* name = reinterpret_cast<const unsigned char*>(wire.data() + i + 1);
    unsigned int j = 0;
    while (j < in_len) {
      const unsigned char offered = in[j];
      if (j + 1 + offered > in_len) break;
      if (offered == length && std::memcmp(in + j + 1, name, length) == 0) {
        *out = in + j + 1;
        *out_len = offered;
        return SSL_TLSEXT_ERR_OK;
      }
      j += 1 + offered;
    }
    i += 1 + length;
  }
  // RFC 7301: no protocol in common is a fatal no_application_protocol alert.
  return SSL_TLSEXT_ERR_ALERT_FATAL;
}

Error file_error(const char* flag, const std::string& file, const std::string& what) {
  return Error{std::string(flag) + " " + file + ": " + what};
}

// A file the router cannot open is reported as the system says it, before OpenSSL tries.
Expected<void> readable(const char* flag, const std::string& file) {
  std::FILE* f = std::fopen(file.c_str(), "rb");
  if (f == nullptr) return file_error(flag, file, std::strerror(errno));
  std::fclose(f);
  return {};
}

}  // namespace

int parse_tls_version(const std::string& text) {
  if (text == "1.2") return TLS1_2_VERSION;
  if (text == "1.3") return TLS1_3_VERSION;
  return 0;
}

Expected<std::shared_ptr<ServerContext>> make_server_context(const TlsOptions& options,
                                                             std::vector<std::string> alpn) {
  ERR_clear_error();
  auto holder = std::make_shared<Holder>();
  SSL_CTX* ctx = holder->context.native_handle();
  SSL_CTX_set_options(
      ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_CIPHER_SERVER_PREFERENCE | SSL_OP_NO_COMPRESSION);
  // An idle connection holds no OpenSSL read or write buffer.
  SSL_CTX_set_mode(ctx, SSL_MODE_RELEASE_BUFFERS);
  if (SSL_CTX_set_min_proto_version(ctx, options.min_version) != 1 ||
      SSL_CTX_set_max_proto_version(ctx, TLS1_3_VERSION) != 1) {
    return Error{"--tls-min-version: " + openssl_errors()};
  }
  if (!options.ciphers.empty() && SSL_CTX_set_cipher_list(ctx, options.ciphers.c_str()) != 1) {
    return Error{"--tls-ciphers '" + options.ciphers + "': " + openssl_errors()};
  }
  const std::string& suites =
      options.ciphersuites.empty() ? std::string(kDefaultCiphersuites) : options.ciphersuites;
  if (SSL_CTX_set_ciphersuites(ctx, suites.c_str()) != 1) {
    return Error{"--tls-ciphersuites '" + options.ciphersuites + "': " + openssl_errors()};
  }

  if (auto ok = readable("--tls-cert", options.cert_file); !ok) return ok.error();
  if (SSL_CTX_use_certificate_chain_file(ctx, options.cert_file.c_str()) != 1) {
    return file_error("--tls-cert", options.cert_file,
                      "not a PEM certificate chain (OpenSSL: " + openssl_errors() + ")");
  }
  if (auto ok = readable("--tls-key", options.key_file); !ok) return ok.error();
  {
    std::FILE* f = std::fopen(options.key_file.c_str(), "rb");
    EVP_PKEY* key = f != nullptr ? PEM_read_PrivateKey(f, nullptr, nullptr, nullptr) : nullptr;
    if (f != nullptr) std::fclose(f);
    if (key == nullptr) {
      return file_error("--tls-key", options.key_file,
                        "not a PEM private key (OpenSSL: " + openssl_errors() + ")");
    }
    const bool used = SSL_CTX_use_PrivateKey(ctx, key) == 1 && SSL_CTX_check_private_key(ctx) == 1;
    EVP_PKEY_free(key);
    if (!used) {
      return file_error("--tls-key", options.key_file,
                        "does not match the certificate in " + options.cert_file +
                            " (OpenSSL: " + openssl_errors() + ")");
    }
  }

  // Resumption: the server-side session cache needs an id context; tickets stay on.
  static constexpr unsigned char kSessionContext[] = "benchgate-router";
  SSL_CTX_set_session_id_context(ctx, kSessionContext, sizeof(kSessionContext) - 1);
  if (SSL_CTX_set_num_tickets(ctx, static_cast<size_t>(options.session_tickets)) != 1) {
    return Error{"--tls-session-tickets: " + openssl_errors()};
  }

  for (const std::string& name : alpn) {
    holder->alpn_wire.push_back(static_cast<char>(name.size()));
    holder->alpn_wire += name;
  }
  if (!holder->alpn_wire.empty()) {
    SSL_CTX_set_alpn_select_cb(ctx, select_alpn, &holder->alpn_wire);
  }
  return std::shared_ptr<ServerContext>(holder, &holder->context);
}

}  // namespace benchgate::router::tls
