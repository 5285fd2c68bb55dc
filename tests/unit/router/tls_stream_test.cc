// net::TlsStream (common/tls/tls_stream.h), OpenSSL on the socket's own descriptor, against
// Boost.Asio's ssl::stream as the client, both in one io_context on a loopback connection:
// every byte arrives in order when the socket fills up mid-record (synchronous write_some
// that would block, then async_write of the rest), what OpenSSL holds is seen without the
// socket, the peer's close_notify and a bare TCP close end reads as ssl::stream's do, an
// operation that completes at once still completes later, and a closed stream touches no
// descriptor.
#include "router/net/stream.h"

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/write.hpp>

#include "router/tls/server_context.h"
#include "tls_test_files.h"

namespace benchgate::router::net {
namespace {

namespace asio = boost::asio;
using boost::system::error_code;
using tcp = asio::ip::tcp;

// A connected pair: `server` a TlsStream, `client` Asio's ssl::stream, handshake done.
class TlsPair : public ::testing::Test {
 protected:
  void SetUp() override {
    tls::TlsOptions options;
    options.cert_file = files_.path("cert.pem");
    options.key_file = files_.path("key.pem");
    options.min_version = TLS1_2_VERSION;
    auto made = tls::make_server_context(options, {});
    ASSERT_TRUE(made) << made.message();
    server_context_ = *made;

    tcp::acceptor acceptor(io_, {asio::ip::make_address_v4("127.0.0.1"), 0});
    net::Stream accepted(io_.get_executor());
    client_ = std::make_unique<asio::ssl::stream<tcp::socket>>(io_, client_context_);
    client_->next_layer().connect(acceptor.local_endpoint());
    acceptor.accept(accepted);
    accepted.non_blocking(true);
    server_ = std::make_unique<TlsStream>(std::move(accepted), *server_context_);

    error_code server_ec = asio::error::would_block, client_ec = asio::error::would_block;
    server_->async_handshake(asio::ssl::stream_base::server,
                             [&](const error_code& ec) { server_ec = ec; });
    client_->async_handshake(asio::ssl::stream_base::client,
                             [&](const error_code& ec) { client_ec = ec; });
    run();
    ASSERT_FALSE(server_ec) << server_ec.message();
    ASSERT_FALSE(client_ec) << client_ec.message();
  }

  void run() {
    io_.restart();
    io_.run_for(std::chrono::seconds(5));
  }

  static std::string pattern(size_t bytes) {
    std::string text(bytes, '\0');
    for (size_t i = 0; i < bytes; ++i) text[i] = static_cast<char>('a' + (i * 7 + i / 251) % 26);
    return text;
  }

  tls::TempFiles files_;
  asio::io_context io_;
  std::shared_ptr<tls::ServerContext> server_context_;
  asio::ssl::context client_context_{asio::ssl::context::tls_client};
  std::unique_ptr<TlsStream> server_;
  std::unique_ptr<asio::ssl::stream<tcp::socket>> client_;
};

TEST_F(TlsPair, AWriteTheSocketCannotTakeGoesOnFromWhereItStoppedAndEveryByteArrivesInOrder) {
  // Far more than the socket buffers hold while the client reads nothing.
  const std::string sent = pattern(8 << 20);
  asio::const_buffer rest = asio::buffer(sent);
  error_code ec;
  size_t synchronous = 0;
  while (rest.size() > 0) {
    const size_t n = server_->write_some(rest, ec);
    synchronous += n;
    rest += n;
    if (ec) break;
  }
  ASSERT_EQ(ec, asio::error::would_block);
  ASSERT_GT(rest.size(), 0u);
  EXPECT_GT(synchronous, 0u);

  error_code write_ec = asio::error::would_block, read_ec = asio::error::would_block;
  size_t written = 0;
  asio::async_write(*server_, rest, [&](const error_code& e, size_t n) {
    write_ec = e;
    written = n;
  });
  std::string received(sent.size(), '\0');
  asio::async_read(*client_, asio::buffer(received),
                   [&](const error_code& e, size_t) { read_ec = e; });
  run();
  ASSERT_FALSE(write_ec) << write_ec.message();
  ASSERT_FALSE(read_ec) << read_ec.message();
  EXPECT_EQ(synchronous + written, sent.size());
  EXPECT_TRUE(received == sent);
}

TEST_F(TlsPair, WhatOpenSslHoldsIsReadWithoutTheSocketAndNothingIsWouldBlock) {
  const std::string sent = pattern(1000);
  asio::write(*client_, asio::buffer(sent));
  // Nothing has been read from the socket yet: OpenSSL holds nothing.
  EXPECT_FALSE(server_->has_buffered_input());

  error_code wait_ec = asio::error::would_block;
  server_->next_layer().async_wait(tcp::socket::wait_read,
                                   [&](const error_code& e) { wait_ec = e; });
  run();
  ASSERT_FALSE(wait_ec);
  std::string received(sent.size(), '\0');
  error_code ec;
  size_t got = server_->read_some(asio::buffer(received.data(), 10), ec);
  ASSERT_FALSE(ec) << ec.message();
  EXPECT_EQ(got, 10u);
  // The rest of the record is decrypted and held: no readiness will announce it.
  EXPECT_TRUE(server_->has_buffered_input());
  while (got < sent.size()) {
    const size_t n = server_->read_some(asio::buffer(received.data() + got, sent.size() - got), ec);
    ASSERT_FALSE(ec) << ec.message();
    got += n;
  }
  EXPECT_TRUE(received == sent);
  EXPECT_FALSE(server_->has_buffered_input());
  EXPECT_EQ(server_->read_some(asio::buffer(received), ec), 0u);
  EXPECT_EQ(ec, asio::error::would_block);
}

TEST_F(TlsPair, AReadThatCompletesAtOnceCompletesAfterTheCallThatStartedIt) {
  const std::string sent = pattern(100);
  asio::write(*client_, asio::buffer(sent));
  error_code wait_ec = asio::error::would_block;
  server_->next_layer().async_wait(tcp::socket::wait_read,
                                   [&](const error_code& e) { wait_ec = e; });
  run();
  std::string received(50, '\0');
  error_code ec;
  ASSERT_EQ(server_->read_some(asio::buffer(received), ec), 50u);  // 50 more held by OpenSSL

  bool completed = false;
  size_t got = 0;
  server_->async_read_some(asio::buffer(received), [&](const error_code& e, size_t n) {
    EXPECT_FALSE(e);
    completed = true;
    got = n;
  });
  EXPECT_FALSE(completed);
  run();
  EXPECT_TRUE(completed);
  EXPECT_EQ(got, 50u);
}

TEST_F(TlsPair, ThePeersCloseNotifyIsEndOfStreamAndItsShutdownCompletesOurs) {
  error_code client_ec = asio::error::would_block, read_ec = asio::error::would_block;
  client_->async_shutdown([&](const error_code& e) { client_ec = e; });
  char byte = 0;
  server_->async_read_some(asio::buffer(&byte, 1), [&](const error_code& e, size_t) {
    read_ec = e;
    server_->async_shutdown([](const error_code&) {});
  });
  run();
  EXPECT_EQ(read_ec, asio::error::eof);
  EXPECT_FALSE(client_ec) << client_ec.message();
}

TEST_F(TlsPair, ATcpCloseWithoutCloseNotifyIsATruncatedStream) {
  client_->next_layer().close();
  error_code read_ec = asio::error::would_block;
  char byte = 0;
  server_->async_read_some(asio::buffer(&byte, 1),
                           [&](const error_code& e, size_t) { read_ec = e; });
  run();
  EXPECT_TRUE(read_ec == asio::ssl::error::stream_truncated ||
              read_ec == asio::error::connection_reset)
      << read_ec.message();
}

TEST_F(TlsPair, AClosedStreamTouchesNoDescriptor) {
  server_->next_layer().close();
  error_code ec;
  char byte = 0;
  EXPECT_EQ(server_->read_some(asio::buffer(&byte, 1), ec), 0u);
  EXPECT_EQ(ec, asio::error::bad_descriptor);
  error_code read_ec, write_ec;
  server_->async_read_some(asio::buffer(&byte, 1),
                           [&](const error_code& e, size_t) { read_ec = e; });
  server_->async_write_some(asio::buffer(&byte, 1),
                            [&](const error_code& e, size_t) { write_ec = e; });
  run();
  EXPECT_EQ(read_ec, asio::error::bad_descriptor);
  EXPECT_EQ(write_ec, asio::error::bad_descriptor);
}

}  // namespace
}  // namespace benchgate::router::net
