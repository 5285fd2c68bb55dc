// The router's TLS listener in-process on a loopback port chosen by the kernel: the server
// context's errors, HTTP/1.1 over TLS with ALPN, pipelined requests in separate TLS records that
// reach the router in one TCP segment (the read path must look at what OpenSSL already holds
// before waiting for the socket), the handshake deadline, and the exact TLS counters.
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/asio/write.hpp>

#include "http_test_client.h"
#include "router/http/server.h"
#include "router/tls/handshake_outcome.h"
#include "router/tls/server_context.h"
#include "tls_test_files.h"

namespace benchgate::router::tls {
namespace {

namespace asio = boost::asio;

TlsOptions options_for(const TempFiles& files) {
  TlsOptions options;
  options.cert_file = files.path("cert.pem");
  options.key_file = files.path("key.pem");
  options.min_version = TLS1_2_VERSION;
  return options;
}

TEST(ServerContext, BadFilesAndSettingsNameWhatIsWrong) {
  TempFiles files;
  TlsOptions options = options_for(files);
  ASSERT_TRUE(make_server_context(options, {"http/1.1"}));

  options.cert_file = files.path("missing.pem");
  auto missing = make_server_context(options, {});
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.message(),
            "--tls-cert " + files.path("missing.pem") + ": No such file or directory");

  options = options_for(files);
  options.key_file = files.path("garbage.pem");
  auto garbage = make_server_context(options, {});
  ASSERT_FALSE(garbage);
  EXPECT_NE(garbage.message().find("--tls-key " + files.path("garbage.pem") +
                                   ": not a PEM private key (OpenSSL: "),
            std::string::npos)
      << garbage.message();

  options = options_for(files);
  options.ciphers = "NO-SUCH-CIPHER";
  auto ciphers = make_server_context(options, {});
  ASSERT_FALSE(ciphers);
  EXPECT_NE(ciphers.message().find("--tls-ciphers 'NO-SUCH-CIPHER': "), std::string::npos)
      << ciphers.message();

  options = options_for(files);
  options.ciphersuites = "TLS_NO_SUCH_SUITE";
  EXPECT_FALSE(make_server_context(options, {}));

  EXPECT_EQ(parse_tls_version("1.2"), TLS1_2_VERSION);
  EXPECT_EQ(parse_tls_version("1.3"), TLS1_3_VERSION);
  EXPECT_EQ(parse_tls_version("1.1"), 0);
}

// The context's TLS 1.3 suites in the server's order of preference.
std::vector<std::string> tls13_suites(ServerContext& context) {
  std::vector<std::string> names;
  STACK_OF(SSL_CIPHER)* ciphers = SSL_CTX_get_ciphers(context.native_handle());
  for (int i = 0; i < sk_SSL_CIPHER_num(ciphers); ++i) {
    const SSL_CIPHER* cipher = sk_SSL_CIPHER_value(ciphers, i);
    if (std::string_view(SSL_CIPHER_get_version(cipher)) == "TLSv1.3") {
      names.emplace_back(SSL_CIPHER_get_name(cipher));
    }
  }
  return names;
}

TEST(ServerContext, Tls13PrefersAes128GcmUnlessTheSuitesAreGiven) {
  TempFiles files;
  TlsOptions options = options_for(files);
  auto context = make_server_context(options, {"http/1.1"});
  ASSERT_TRUE(context) << context.message();
  EXPECT_EQ(tls13_suites(**context),
            (std::vector<std::string>{"TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384",
                                      "TLS_CHACHA20_POLY1305_SHA256"}));
  EXPECT_NE(SSL_CTX_get_options((*context)->native_handle()) & SSL_OP_CIPHER_SERVER_PREFERENCE, 0u);

  options.ciphersuites = "TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256";
  auto given = make_server_context(options, {"http/1.1"});
  ASSERT_TRUE(given) << given.message();
  EXPECT_EQ(tls13_suites(**given),
            (std::vector<std::string>{"TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256"}));
}

TEST(HandshakeOutcome, ErrorsAreClassifiedByReason) {
  using metrics::TlsFailure;
  EXPECT_EQ(classify_handshake_error(asio::error::eof), TlsFailure::peer_closed);
  EXPECT_EQ(classify_handshake_error(asio::ssl::error::stream_truncated), TlsFailure::peer_closed);
  const auto ssl_error = [](int reason) {
    return boost::system::error_code(static_cast<int>(ERR_PACK(ERR_LIB_SSL, 0, reason)),
                                     asio::error::get_ssl_category());
  };
  EXPECT_EQ(classify_handshake_error(ssl_error(SSL_R_WRONG_VERSION_NUMBER)), TlsFailure::not_tls);
  EXPECT_EQ(classify_handshake_error(ssl_error(SSL_R_HTTP_REQUEST)), TlsFailure::not_tls);
  EXPECT_EQ(classify_handshake_error(ssl_error(SSL_R_UNSUPPORTED_PROTOCOL)),
            TlsFailure::protocol_version);
  EXPECT_EQ(classify_handshake_error(ssl_error(SSL_R_NO_SHARED_CIPHER)),
            TlsFailure::no_shared_cipher);
  EXPECT_EQ(classify_handshake_error(ssl_error(SSL_R_NO_APPLICATION_PROTOCOL)),
            TlsFailure::no_application_protocol);
  EXPECT_EQ(classify_handshake_error(ssl_error(SSL_R_TLSV1_ALERT_UNKNOWN_CA)),
            TlsFailure::certificate_rejected);
  EXPECT_EQ(classify_handshake_error(ssl_error(SSL_R_BAD_SIGNATURE)), TlsFailure::other);
}

// A TLS client on a blocking socket through memory BIOs, so that the test decides which TLS
// records go out in which TCP write.
class TlsTestClient {
 public:
  // `alpn`: the offer in wire format (length-prefixed names).
  explicit TlsTestClient(uint16_t port, std::string alpn = std::string("\x08http/1.1"))
      : socket_(io_) {
    socket_.connect({asio::ip::make_address_v4("127.0.0.1"), port});
    timeval timeout{5, 0};
    ::setsockopt(socket_.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
    ctx_ = SSL_CTX_new(TLS_client_method());
    ssl_ = SSL_new(ctx_);
    in_ = BIO_new(BIO_s_mem());
    out_ = BIO_new(BIO_s_mem());
    SSL_set_bio(ssl_, in_, out_);
    SSL_set_connect_state(ssl_);
    SSL_set_alpn_protos(ssl_, reinterpret_cast<const unsigned char*>(alpn.data()),
                        static_cast<unsigned int>(alpn.size()));
  }
  ~TlsTestClient() {
    SSL_free(ssl_);
    SSL_CTX_free(ctx_);
  }

  bool handshake() {
    for (int i = 0; i < 100; ++i) {
      const int rc = SSL_do_handshake(ssl_);
      flush();
      if (rc == 1) return true;
      if (SSL_get_error(ssl_, rc) != SSL_ERROR_WANT_READ || !receive()) return false;
    }
    return false;
  }
  // Each string becomes its own TLS record; all of them leave in one TCP write.
  void send_records(const std::vector<std::string>& records) {
    for (const std::string& record : records) {
      ASSERT_EQ(SSL_write(ssl_, record.data(), static_cast<int>(record.size())),
                static_cast<int>(record.size()));
    }
    flush();
  }
  // Reads until `count` complete responses of /bench/hello arrived, or the peer stops.
  std::string read_until(const std::string& needle, int count) {
    std::string text;
    while (occurrences(text, needle) < count) {
      char buffer[4096];
      const int n = SSL_read(ssl_, buffer, sizeof(buffer));
      if (n > 0) {
        text.append(buffer, static_cast<size_t>(n));
        continue;
      }
      if (SSL_get_error(ssl_, n) != SSL_ERROR_WANT_READ || !receive()) break;
    }
    return text;
  }
  std::string alpn() const {
    const unsigned char* name = nullptr;
    unsigned int length = 0;
    SSL_get0_alpn_selected(ssl_, &name, &length);
    return std::string(reinterpret_cast<const char*>(name), length);
  }
  int version() const { return SSL_version(ssl_); }

 private:
  static int occurrences(const std::string& text, const std::string& needle) {
    int n = 0;
    for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) {
      ++n;
    }
    return n;
  }
  void flush() {
    char* data = nullptr;
    const long size = BIO_get_mem_data(out_, &data);
    if (size > 0) asio::write(socket_, asio::buffer(data, static_cast<size_t>(size)));
    BIO_reset(out_);
  }
  // recv() itself, so that SO_RCVTIMEO ends a wait for an answer that never comes (Asio's
  // synchronous read would wait again).
  bool receive() {
    char buffer[16384];
    const ssize_t n = ::recv(socket_.native_handle(), buffer, sizeof(buffer), 0);
    if (n <= 0) return false;
    BIO_write(in_, buffer, static_cast<int>(n));
    return true;
  }

  asio::io_context io_;
  asio::ip::tcp::socket socket_;
  SSL_CTX* ctx_ = nullptr;
  SSL* ssl_ = nullptr;
  BIO* in_ = nullptr;
  BIO* out_ = nullptr;
};

class TlsServerTest : public ::testing::Test {
 protected:
  // The HTTP port's ALPN list, as router/app/config.cc makes it.
  void start(int64_t handshake_timeout_ns = 10'000'000'000) {
    auto context = make_server_context(options_for(files_), {"h2", "http/1.1"});
    ASSERT_TRUE(context) << context.message();
    http::ServerOptions options;
    options.tls_context = *context;
    options.tls_handshake_timeout_ns = handshake_timeout_ns;
    auto started = http::HttpServer::start(options);
    ASSERT_TRUE(started) << started.message();
    server_ = std::move(*started);
  }
  uint16_t port() const { return server_->endpoint().port(); }
  const metrics::TlsCounters& http_tls(const metrics::Snapshot& snapshot) {
    return snapshot.tls[static_cast<size_t>(metrics::TlsListener::http)];
  }

  TempFiles files_;
  std::unique_ptr<http::HttpServer> server_;
};

TEST_F(TlsServerTest, PipelinedRequestsInSeparateRecordsOfOneSegmentAreAllAnswered) {
  start();
  {
    TlsTestClient client(port());
    ASSERT_TRUE(client.handshake());
    EXPECT_EQ(client.alpn(), "http/1.1");
    EXPECT_EQ(client.version(), TLS1_3_VERSION);
    const std::string request = "GET /bench/hello HTTP/1.1\r\nHost: t\r\n\r\n";
    client.send_records({request, request, request});
    const std::string answers = client.read_until("Hello, world", 3);
    EXPECT_EQ(answers.find("HTTP/1.1 200 OK"), 0u) << answers;
    size_t count = 0;
    for (size_t at = answers.find("Hello, world"); at != std::string::npos;
         at = answers.find("Hello, world", at + 1)) {
      ++count;
    }
    EXPECT_EQ(count, 3u) << answers;
    // TLS connections never hold their read buffer between requests (router/http/read_hold.h):
    // they wait for readability, asking the TLS layer first.
    EXPECT_EQ(server_->snapshot().read_buffers_held, 0);
  }
  const metrics::Snapshot snapshot = testing::quiesced_snapshot(*server_, 1);
  EXPECT_TRUE(snapshot.tls_present);
  EXPECT_EQ(snapshot.counters.requests_for(http::Route::kHello, 200), 3u);
  const metrics::TlsCounters& tls = http_tls(snapshot);
  EXPECT_EQ(tls.handshakes[static_cast<size_t>(metrics::TlsVersion::tls1_3)]
                          [static_cast<size_t>(metrics::TlsAlpn::http1_1)],
            1u);
  EXPECT_EQ(tls.total_handshakes(), 1u);
  EXPECT_EQ(tls.total_resumed(), 0u);  // a full handshake: the client offered no session
  EXPECT_EQ(tls.total_failures(), 0u);
}

// Connects, sends `first` (may be empty) and blocks until the router closes the connection
// (10 s at most: a read that times out fails the expectation).
void expect_closed_after(uint16_t port, std::string_view first) {
  asio::io_context io;
  asio::ip::tcp::socket socket(io);
  socket.connect({asio::ip::make_address_v4("127.0.0.1"), port});
  if (!first.empty()) asio::write(socket, asio::buffer(first.data(), first.size()));
  timeval timeout{10, 0};
  ::setsockopt(socket.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
  char byte = 0;
  boost::system::error_code ec;
  socket.read_some(asio::buffer(&byte, 1), ec);
  EXPECT_TRUE(ec == asio::error::eof || ec == asio::error::connection_reset) << ec.message();
}

TEST_F(TlsServerTest, AClientThatSendsNothingIsClosedAtTheHandshakeDeadlineAndCounted) {
  start(/*handshake_timeout_ns=*/200'000'000);
  expect_closed_after(port(), {});
  const metrics::Snapshot snapshot = testing::quiesced_snapshot(*server_, 1);
  const metrics::TlsCounters& tls = http_tls(snapshot);
  EXPECT_EQ(tls.failures[static_cast<size_t>(metrics::TlsFailure::timeout)], 1u);
  EXPECT_EQ(tls.total_failures(), 1u);
  EXPECT_EQ(tls.total_handshakes(), 0u);
  // A handshake that timed out is not also an idle timeout.
  EXPECT_EQ(snapshot.counters.timed_out, 0u);
}

// h2 by ALPN: the HTTP/2 server takes the TLS stream over right after the handshake and answers
// a request (raw frames: the client preface, an empty SETTINGS, one HEADERS of GET
// /bench/hello in HPACK from the static table); HTTP/1.1 clients on the same port are served
// as before.
TEST_F(TlsServerTest, AHandshakeThatChoseH2IsServedByTheHttp2Server) {
  start();
  {
    TlsTestClient h2(port(), std::string("\x02h2\x08http/1.1"));
    ASSERT_TRUE(h2.handshake());
    EXPECT_EQ(h2.alpn(), "h2");
    const std::string preface("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");
    const std::string settings("\x00\x00\x00\x04\x00\x00\x00\x00\x00", 9);
    // :method GET (2), :scheme https (7), :path literal "/bench/hello" (name 4), :authority "t"
    // (name 1); END_STREAM | END_HEADERS on stream 1.
    const std::string block = std::string("\x82\x87\x44\x0c/bench/hello\x41\x01t");
    std::string headers("\x00\x00", 2);
    headers += static_cast<char>(block.size());
    headers += std::string("\x01\x05\x00\x00\x00\x01", 6);
    headers += block;
    h2.send_records({preface + settings + headers});
    const std::string answer = h2.read_until("Hello, world", 1);
    // The server's SETTINGS comes first, then the answer's frames.
    ASSERT_GE(answer.size(), 9u);
    EXPECT_EQ(answer[3], '\x04') << "first frame type " << int(answer[3]);
    EXPECT_NE(answer.find("Hello, world"), std::string::npos);
    TlsTestClient http1(port());
    ASSERT_TRUE(http1.handshake());
    EXPECT_EQ(http1.alpn(), "http/1.1");
    http1.send_records({"GET /bench/hello HTTP/1.1\r\nHost: t\r\n\r\n"});
    EXPECT_NE(http1.read_until("Hello, world", 1).find("Hello, world"), std::string::npos);
  }
  const metrics::Snapshot snapshot = testing::quiesced_snapshot(*server_, 2);
  const metrics::TlsCounters& tls = http_tls(snapshot);
  EXPECT_EQ(tls.handshakes[static_cast<size_t>(metrics::TlsVersion::tls1_3)]
                          [static_cast<size_t>(metrics::TlsAlpn::h2)],
            1u);
  EXPECT_EQ(tls.handshakes[static_cast<size_t>(metrics::TlsVersion::tls1_3)]
                          [static_cast<size_t>(metrics::TlsAlpn::http1_1)],
            1u);
  EXPECT_EQ(snapshot.counters.h2.connections, 1u);
  EXPECT_EQ(snapshot.counters.requests_for(http::Route::kHello, 200), 2u);
}

TEST_F(TlsServerTest, CleartextOnTheTlsPortIsCountedAsNotTls) {
  start();
  {
    testing::HttpTestClient client(port());
    client.send("GET /bench/hello HTTP/1.1\r\nHost: t\r\n\r\n");
    EXPECT_FALSE(client.read());
  }
  const metrics::Snapshot snapshot = testing::quiesced_snapshot(*server_, 1);
  EXPECT_EQ(http_tls(snapshot).failures[static_cast<size_t>(metrics::TlsFailure::not_tls)], 1u);
  EXPECT_EQ(snapshot.counters.total_requests(), 0u);
}

// Fewer bytes than a TLS record header of something else (a cleartext RawSocket hello is 4) and
// then silence: closed at once on its first byte, not at the handshake deadline (an hour here,
// so that only the first byte can have ended it).
TEST_F(TlsServerTest, AShortCleartextHelloIsCountedAsNotTlsAtOnce) {
  start(/*handshake_timeout_ns=*/3'600'000'000'000);
  expect_closed_after(port(), std::string_view("\x7f\xf1\x00\x00", 4));
  const metrics::Snapshot snapshot = testing::quiesced_snapshot(*server_, 1);
  const metrics::TlsCounters& tls = http_tls(snapshot);
  EXPECT_EQ(tls.failures[static_cast<size_t>(metrics::TlsFailure::not_tls)], 1u);
  EXPECT_EQ(tls.total_failures(), 1u);
}

}  // namespace
}  // namespace benchgate::router::tls
