// Classifying server-side TLS handshakes (see handshake_outcome.h).
#include "router/tls/handshake_outcome.h"

#include <openssl/err.h>

#include <cstring>

#include <boost/asio/error.hpp>
#include <boost/asio/ssl/error.hpp>

namespace benchgate::router::tls {

metrics::TlsFailure classify_handshake_error(const boost::system::error_code& ec) {
  using metrics::TlsFailure;
  namespace asio = boost::asio;
  if (ec == asio::error::eof || ec == asio::ssl::error::stream_truncated ||
      ec == asio::error::connection_reset || ec == asio::error::broken_pipe) {
    return TlsFailure::peer_closed;
  }
  if (ec.category() != asio::error::get_ssl_category()) return TlsFailure::other;
  switch (ERR_GET_REASON(static_cast<unsigned long>(ec.value()))) {
    case SSL_R_WRONG_VERSION_NUMBER:
    case SSL_R_HTTP_REQUEST:
    case SSL_R_HTTPS_PROXY_REQUEST:
    case SSL_R_PACKET_LENGTH_TOO_LONG:
    case SSL_R_RECORD_LENGTH_MISMATCH:
    case SSL_R_UNEXPECTED_MESSAGE:
    case SSL_R_UNEXPECTED_RECORD:
      return TlsFailure::not_tls;
    case SSL_R_UNSUPPORTED_PROTOCOL:
    case SSL_R_VERSION_TOO_LOW:
    case SSL_R_VERSION_TOO_HIGH:
    case SSL_R_TLSV1_ALERT_PROTOCOL_VERSION:
      return TlsFailure::protocol_version;
    case SSL_R_NO_SHARED_CIPHER:
    case SSL_R_NO_SHARED_GROUPS:
    case SSL_R_NO_SUITABLE_SIGNATURE_ALGORITHM:
    case SSL_R_SSLV3_ALERT_HANDSHAKE_FAILURE:
      return TlsFailure::no_shared_cipher;
    case SSL_R_NO_APPLICATION_PROTOCOL:
    case SSL_R_TLSV1_ALERT_NO_APPLICATION_PROTOCOL:
      return TlsFailure::no_application_protocol;
    case SSL_R_TLSV1_ALERT_UNKNOWN_CA:
    case SSL_R_SSLV3_ALERT_BAD_CERTIFICATE:
    case SSL_R_SSLV3_ALERT_CERTIFICATE_UNKNOWN:
    case SSL_R_SSLV3_ALERT_CERTIFICATE_EXPIRED:
    case SSL_R_SSLV3_ALERT_UNSUPPORTED_CERTIFICATE:
    case SSL_R_TLSV1_ALERT_DECRYPT_ERROR:
      return TlsFailure::certificate_rejected;
    default:
      return TlsFailure::other;
  }
}

metrics::TlsAlpn count_handshake(SSL* ssl, metrics::TlsCounters& counters) {
  const unsigned char* name = nullptr;
  unsigned int length = 0;
  SSL_get0_alpn_selected(ssl, &name, &length);
  metrics::TlsAlpn alpn = metrics::TlsAlpn::none;
  if (length == 2 && std::memcmp(name, "h2", 2) == 0) alpn = metrics::TlsAlpn::h2;
  if (length == 8 && std::memcmp(name, "http/1.1", 8) == 0) alpn = metrics::TlsAlpn::http1_1;
  const auto version = SSL_version(ssl) == TLS1_3_VERSION ? metrics::TlsVersion::tls1_3
                                                          : metrics::TlsVersion::tls1_2;
  counters.count_handshake(version, alpn, SSL_session_reused(ssl) == 1);
  return alpn;
}

}  // namespace benchgate::router::tls
