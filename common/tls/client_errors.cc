// TLS client errors that say why (see client_errors.h).
#include "common/tls/client_errors.h"

#include <openssl/err.h>
#include <openssl/x509.h>

#include <string>
#include <string_view>

#include <boost/asio/ssl/error.hpp>

namespace benchgate::tls {
namespace {

// Boost's error_category has a protected non-virtual destructor by design; the instances below
// are never deleted through a base pointer.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wnon-virtual-dtor"

// Value: OpenSSL's verify result (X509_V_ERR_*).
class VerifyCategory : public boost::system::error_category {
 public:
  const char* name() const noexcept override { return "tls_verify"; }
  std::string message(int value) const override {
    std::string text = "certificate verify failed: ";
    text += X509_verify_cert_error_string(value);
    switch (value) {
      case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT:
      case X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN:
      case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT:
      case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY:
      case X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE:
        text +=
            " (no CA the client trusts issued the server's certificate: ca_file names the "
            "one that did)";
        break;
      case X509_V_ERR_HOSTNAME_MISMATCH:
      case X509_V_ERR_IP_ADDRESS_MISMATCH:
        text +=
            " (the server's certificate does not name the host verified: the address's "
            "host, or sni when the workload sets it)";
        break;
      default:
        break;
    }
    return text;
  }
};

// Value: OpenSSL's packed error code, whose text comes first.
class NotTlsCategory : public boost::system::error_category {
 public:
  const char* name() const noexcept override { return "tls_not_tls"; }
  std::string message(int value) const override {
    return boost::system::error_code(value, boost::asio::error::get_ssl_category()).message() +
           ": the server did not answer with TLS (is this a cleartext port?)";
  }
};

enum class AlpnError { kH2 = 1, kOther, kWebSocketH2, kWebSocketOther };

class AlpnCategory : public boost::system::error_category {
 public:
  const char* name() const noexcept override { return "tls_alpn"; }
  std::string message(int value) const override {
    switch (static_cast<AlpnError>(value)) {
      case AlpnError::kH2:
        return "the server selected h2 by ALPN, but an http1 workload speaks HTTP/1.1 only "
               "(alpn = [\"http/1.1\"] leaves the server no other choice; protocol = \"http2\" "
               "speaks h2)";
      case AlpnError::kOther:
        break;
      case AlpnError::kWebSocketH2:
        return "the server selected h2 by ALPN, but WAMP over WebSocket opens with an HTTP/1.1 "
               "Upgrade (alpn = [\"http/1.1\"] leaves the server no other choice)";
      case AlpnError::kWebSocketOther:
        return "the server selected a protocol other than http/1.1 by ALPN, but WAMP over "
               "WebSocket opens with an HTTP/1.1 Upgrade (alpn = [\"http/1.1\"] leaves the "
               "server no other choice)";
    }
    return "the server selected a protocol other than http/1.1 by ALPN, but an http1 workload "
           "speaks HTTP/1.1 only (alpn = [\"http/1.1\"] leaves the server no other choice)";
  }
};

#pragma GCC diagnostic pop

const boost::system::error_category& verify_category() {
  static const VerifyCategory category;
  return category;
}

const boost::system::error_category& not_tls_category() {
  static const NotTlsCategory category;
  return category;
}

const boost::system::error_category& alpn_category() {
  static const AlpnCategory category;
  return category;
}

}  // namespace

boost::system::error_code client_handshake_error(SSL* ssl, const boost::system::error_code& ec) {
  if (ec.category() != boost::asio::error::get_ssl_category()) return ec;
  switch (ERR_GET_REASON(static_cast<unsigned long>(ec.value()))) {
    case SSL_R_CERTIFICATE_VERIFY_FAILED:
      if (const long result = SSL_get_verify_result(ssl); result != X509_V_OK) {
        return {static_cast<int>(result), verify_category()};
      }
      return ec;
    case SSL_R_WRONG_VERSION_NUMBER:
    case SSL_R_PACKET_LENGTH_TOO_LONG:
      return {ec.value(), not_tls_category()};
    default:
      return ec;
  }
}

namespace {

// An error of `h2` or `other` when the server on `ssl` selected by ALPN a protocol other than
// http/1.1 (none selected is HTTP/1.1), else none.
boost::system::error_code not_http11_error(SSL* ssl, AlpnError h2, AlpnError other) {
  const unsigned char* data = nullptr;
  unsigned size = 0;
  SSL_get0_alpn_selected(ssl, &data, &size);
  const std::string_view selected(reinterpret_cast<const char*>(data), size);
  if (selected.empty() || selected == "http/1.1") return {};
  return {static_cast<int>(selected == "h2" ? h2 : other), alpn_category()};
}

}  // namespace

boost::system::error_code http11_alpn_error(SSL* ssl) {
  return not_http11_error(ssl, AlpnError::kH2, AlpnError::kOther);
}

boost::system::error_code websocket_alpn_error(SSL* ssl) {
  return not_http11_error(ssl, AlpnError::kWebSocketH2, AlpnError::kWebSocketOther);
}

}  // namespace benchgate::tls
