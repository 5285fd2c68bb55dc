// TLS for the worker's HTTP connections (HTTP/1.1 and HTTP/2) through OpenSSL 3 on each
// connection's own socket (common/tls/tls_stream.h): one client context per workload, shared
// read-only by every connection, and what a handshake negotiated, as the peer chose it.
#pragma once

#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/tls/tls_stream.h"
#include "common/util/expected.h"
#include "worker/engine/window_result.h"
#include "worker/engine/workload.h"

namespace benchgate::worker::http {

// One load connection's TLS, on the socket the connection keeps across reconnects.
using TlsSocket = ::benchgate::tls::TlsStream<boost::asio::ip::tcp::socket&>;

// The client context for `tls`: versions, ciphers, verification (on unless tls.insecure;
// against tls.ca_pem or the system's CAs) and ALPN (tls.alpn, else `default_alpn`). An error
// names what OpenSSL refused ("ciphers 'X' match no cipher").
Expected<std::shared_ptr<boost::asio::ssl::context>> make_client_context(
    const TlsSpec& tls, const std::vector<std::string>& default_alpn);

// Sets SNI and the host name verification of one connection's SSL object before its handshake.
// `sni` empty: no SNI; `verify_host` an IP address is matched against the certificate's IP SANs.
void prepare_connection(SSL* ssl, const std::string& sni, const std::string& verify_host);

// For a load connection's SSL object (the HTTP/2 session calls it): OpenSSL keeps its record
// buffers for the connection's life, whatever the context says. Releasing them whenever
// they are empty (SSL_MODE_RELEASE_BUFFERS) suits a server's idle connections but costs a
// connection that is never idle a malloc and a free of about 17 KB for most records it reads
// and writes.
void keep_record_buffers(SSL* ssl);

// Version, cipher and ALPN of a finished handshake.
NegotiatedTls negotiated(SSL* ssl);

// The ALPN protocol the peer selected ("" when none).
std::string_view selected_alpn(SSL* ssl);

// tls_resumption: the context hands every session the server issues (a TLS 1.2 session or
// ticket at the handshake's end, a TLS 1.3 ticket after it) to the SavedSession of the
// connection that received it; the context itself stores none, so the load threads share
// nothing but the read-only context.
void enable_session_reuse(boost::asio::ssl::context& context);

// The last resumable session one connection received, offered on its next handshake. Owned by
// the connection, which outlives each of its SSL objects.
class SavedSession {
 public:
  SavedSession() = default;
  ~SavedSession();
  SavedSession(const SavedSession&) = delete;
  SavedSession& operator=(const SavedSession&) = delete;

  // Before `ssl`'s handshake: offers the saved session, if any, and keeps what `ssl` receives.
  void offer(SSL* ssl);
  bool has_session() const { return session_ != nullptr; }
  // Takes the reference to `session` (from the context's new-session callback).
  void keep(SSL_SESSION* session);

 private:
  SSL_SESSION* session_ = nullptr;
};

// Whether the finished handshake of `ssl` resumed a session (abbreviated handshake).
bool resumed(SSL* ssl);

// Before a connection's SSL object is freed: the worker closes connections it is done with
// without a close_notify exchange, and OpenSSL would take that for a failed connection and mark
// its session not resumable (the session a SavedSession keeps).
void closing(SSL* ssl);

}  // namespace benchgate::worker::http
