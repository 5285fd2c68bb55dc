#include "worker/http/tls_client.h"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <boost/asio/ip/address.hpp>

namespace benchgate::worker::http {
namespace {

namespace ssl = boost::asio::ssl;

std::string openssl_error() {
  const unsigned long code = ERR_get_error();
  if (code == 0) return "no reason given";
  char text[256];
  ERR_error_string_n(code, text, sizeof text);
  ERR_clear_error();
  return text;
}

// RFC 7301's wire format: each name as one length byte and its bytes.
std::string alpn_wire(const std::vector<std::string>& names) {
  std::string wire;
  for (const std::string& name : names) {
    wire.push_back(static_cast<char>(name.size()));
    wire += name;
  }
  return wire;
}

}  // namespace

Expected<std::shared_ptr<ssl::context>> make_client_context(
    const TlsSpec& tls, const std::vector<std::string>& default_alpn) {
  auto context = std::make_shared<ssl::context>(ssl::context::tls_client);
  SSL_CTX* ctx = context->native_handle();
  int min_version = TLS1_2_VERSION;
  int max_version = TLS1_3_VERSION;
  if (tls.version == "1.2") max_version = TLS1_2_VERSION;
  if (tls.version == "1.3") min_version = TLS1_3_VERSION;
  if (!tls.version.empty() && tls.version != "1.2" && tls.version != "1.3") {
    return Error{"tls.version '" + tls.version + "' is not 1.2 or 1.3"};
  }
  SSL_CTX_set_min_proto_version(ctx, min_version);
  SSL_CTX_set_max_proto_version(ctx, max_version);
  if (!tls.ciphers.empty()) {
    // TLS 1.3's suites are set apart from the cipher list of the versions before it.
    const int ok = tls.version == "1.3" ? SSL_CTX_set_ciphersuites(ctx, tls.ciphers.c_str())
                                        : SSL_CTX_set_cipher_list(ctx, tls.ciphers.c_str());
    if (ok != 1) {
      return Error{"tls.ciphers '" + tls.ciphers + "' match no cipher OpenSSL offers" +
                   (tls.version == "1.3" ? " as a TLS 1.3 suite" : " for TLS 1.2") + " (" +
                   openssl_error() + ")"};
    }
  }
  if (tls.insecure) {
    context->set_verify_mode(ssl::verify_none);
  } else {
    context->set_verify_mode(ssl::verify_peer);
    boost::system::error_code ec;
    if (!tls.ca_pem.empty()) {
      context->add_certificate_authority(boost::asio::buffer(tls.ca_pem), ec);
      if (ec) return Error{"tls.ca_pem is not a PEM certificate: " + ec.message()};
    } else {
      context->set_default_verify_paths(ec);
      if (ec) return Error{"cannot read the system's CA certificates: " + ec.message()};
    }
  }
  const std::string wire = alpn_wire(tls.alpn.empty() ? default_alpn : tls.alpn);
  if (!wire.empty() &&
      SSL_CTX_set_alpn_protos(ctx, reinterpret_cast<const unsigned char*>(wire.data()),
                              static_cast<unsigned>(wire.size())) != 0) {
    return Error{"tls.alpn could not be set: " + openssl_error()};
  }
  return context;
}

void prepare_connection(SSL* ssl, const std::string& sni, const std::string& verify_host) {
  if (!sni.empty()) SSL_set_tlsext_host_name(ssl, sni.c_str());
  if (verify_host.empty()) return;
  X509_VERIFY_PARAM* param = SSL_get0_param(ssl);
  boost::system::error_code ec;
  boost::asio::ip::make_address(verify_host, ec);
  if (!ec) {
    X509_VERIFY_PARAM_set1_ip_asc(param, verify_host.c_str());
  } else {
    X509_VERIFY_PARAM_set_hostflags(param, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
    X509_VERIFY_PARAM_set1_host(param, verify_host.c_str(), 0);
  }
}

void keep_record_buffers(SSL* ssl) { SSL_clear_mode(ssl, SSL_MODE_RELEASE_BUFFERS); }

std::string_view selected_alpn(SSL* ssl) {
  const unsigned char* data = nullptr;
  unsigned size = 0;
  SSL_get0_alpn_selected(ssl, &data, &size);
  return size == 0 ? std::string_view()
                   : std::string_view(reinterpret_cast<const char*>(data), size);
}

namespace {

// The SSL object's slot that points at its connection's SavedSession.
int saved_session_index() {
  static const int index = SSL_get_ex_new_index(0, nullptr, nullptr, nullptr, nullptr);
  return index;
}

// OpenSSL's new-session callback: 1 keeps the reference (the SavedSession frees it). The
// session stays the SSL object's current one too: closing() keeps OpenSSL from marking it not
// resumable when that SSL is freed.
int on_new_session(SSL* ssl, SSL_SESSION* session) {
  auto* slot = static_cast<SavedSession*>(SSL_get_ex_data(ssl, saved_session_index()));
  if (!slot || !SSL_SESSION_is_resumable(session)) return 0;
  slot->keep(session);
  return 1;
}

}  // namespace

void enable_session_reuse(ssl::context& context) {
  SSL_CTX* ctx = context.native_handle();
  saved_session_index();  // allocated before any load thread asks for it
  SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL_STORE);
  SSL_CTX_sess_set_new_cb(ctx, on_new_session);
}

SavedSession::~SavedSession() {
  if (session_) SSL_SESSION_free(session_);
}

void SavedSession::offer(SSL* ssl) {
  SSL_set_ex_data(ssl, saved_session_index(), this);
  if (session_) SSL_set_session(ssl, session_);
}

void SavedSession::keep(SSL_SESSION* session) {
  if (session_) SSL_SESSION_free(session_);
  session_ = session;
}

bool resumed(SSL* ssl) { return SSL_session_reused(ssl) == 1; }

void closing(SSL* ssl) { SSL_set_shutdown(ssl, SSL_SENT_SHUTDOWN | SSL_RECEIVED_SHUTDOWN); }

NegotiatedTls negotiated(SSL* ssl) {
  NegotiatedTls out;
  out.version = SSL_get_version(ssl);
  if (const SSL_CIPHER* cipher = SSL_get_current_cipher(ssl))
    out.cipher = SSL_CIPHER_get_name(cipher);
  out.alpn = std::string(selected_alpn(ssl));
  return out;
}

}  // namespace benchgate::worker::http
