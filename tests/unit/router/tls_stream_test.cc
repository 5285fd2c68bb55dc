// net::TlsStream (common/tls/tls_stream.h), OpenSSL on the socket's own descriptor, against
// Boost.Asio's ssl::stream as the client, both in one io_context on a loopback connection:
// every byte arrives in order when the socket fills up mid-record (synchronous write_some
// that would block, then async_write of the rest; also when the rest is gathered from small
// buffers), small buffers written together leave in one record, one read returns every
// record the socket brought, what OpenSSL holds is seen without the socket (and the start of
// a record alone is not), the peer's close_notify and a bare TCP close end reads as
// ssl::stream's do, a bad record behind good bytes is reported as itself, an operation that
// completes at once still completes later, a write that waited gives the bytes it kept back
// before its handler runs (done, or closed on while it waits), and a closed stream touches no
// descriptor.
#include "router/net/stream.h"

#include <gtest/gtest.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/ssl.h>

#include <chrono>
#include <cstring>
#include <functional>
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

#include "common/util/size_class_pool.h"
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
    // Each write leaves at once, as the worker's and the router's do (no Nagle delay).
    client_->next_layer().set_option(tcp::no_delay(true));
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

  // Until the server's socket is readable.
  void wait_readable() {
    error_code wait_ec = asio::error::would_block;
    server_->next_layer().async_wait(tcp::socket::wait_read,
                                     [&](const error_code& e) { wait_ec = e; });
    run();
    ASSERT_FALSE(wait_ec);
  }

  // Counts the TLS records the server writes from now on.
  void count_records_written() {
    SSL_set_msg_callback_arg(server_->native_handle(), &records_written_);
    SSL_set_msg_callback(server_->native_handle(), [](int write_p, int, int content_type,
                                                      const void*, size_t, SSL*, void* arg) {
      if (write_p == 1 && content_type == SSL3_RT_HEADER) ++*static_cast<size_t*>(arg);
    });
  }

  // The client reads `bytes` bytes.
  std::string receive(size_t bytes) {
    std::string received(bytes, '\0');
    error_code read_ec = asio::error::would_block;
    asio::async_read(*client_, asio::buffer(received),
                     [&](const error_code& e, size_t) { read_ec = e; });
    run();
    EXPECT_FALSE(read_ec) << read_ec.message();
    return received;
  }

  // The records the server writes for `write(handler)` (count_records_written() first),
  // with the write's success and the client reading `expected` back whole.
  template <typename Write>
  size_t records_for(Write write, const std::string& expected) {
    records_written_ = 0;
    error_code write_ec = asio::error::would_block;
    write([&](const error_code& e, size_t) { write_ec = e; });
    run();
    EXPECT_FALSE(write_ec) << write_ec.message();
    EXPECT_TRUE(receive(expected.size()) == expected);
    return records_written_;
  }

  // From here on the client's TLS output goes into memory instead of its socket; the test
  // takes it with take_held() and sends it, whole or in part, itself.
  void hold_client_output() {
    held_ = BIO_new(BIO_s_mem());
    ASSERT_NE(held_, nullptr);
    SSL_set0_wbio(client_->native_handle(), held_);
  }
  // What the client wrote since hold_client_output() or the last take.
  void take_held(std::vector<char>& records) {
    records.resize(static_cast<size_t>(BIO_pending(held_)));
    ASSERT_EQ(BIO_read(held_, records.data(), static_cast<int>(records.size())),
              static_cast<int>(records.size()));
  }

  // Sends all the client wrote since hold_client_output() in one write of its socket (changed
  // first by `alter`, when given), and waits until the server's socket is readable.
  void send_held(const std::function<void(std::vector<char>&)>& alter = nullptr) {
    std::vector<char> records;
    ASSERT_NO_FATAL_FAILURE(take_held(records));
    if (alter) alter(records);
    asio::write(client_->next_layer(), asio::buffer(records));
    wait_readable();
  }

  // `text` cut into buffers of `piece` bytes.
  static std::vector<asio::const_buffer> pieces(const std::string& text, size_t from,
                                                size_t piece) {
    std::vector<asio::const_buffer> buffers;
    for (size_t at = from; at < text.size(); at += piece) {
      buffers.emplace_back(text.data() + at, std::min(piece, text.size() - at));
    }
    return buffers;
  }

  // Fills the server's socket, starts `write(rest_pieces, handler)` with the rest in 100-byte
  // pieces (its first record gathered, and kept in a 16 KiB block of the thread's pool while it
  // waits for the socket), and closes the server's socket under it. `write_ec`: the write's
  // error; `kept_block_back`: whether the kept block was back in the pool when the handler ran
  // (the pool hands out the block given back last first). Called with ASSERT_NO_FATAL_FAILURE.
  template <typename Write>
  void close_while_waiting(Write write, error_code& write_ec, bool& kept_block_back) {
    // A pattern of its own: a block another test gave back never holds these bytes.
    std::string sent(8 << 20, '\0');
    for (size_t i = 0; i < sent.size(); ++i)
      sent[i] = static_cast<char>('A' + (i * 17 + i / 89) % 26);
    asio::const_buffer rest = asio::buffer(sent);
    error_code ec;
    while (rest.size() > 0) {
      rest += server_->write_some(rest, ec);
      if (ec) break;
    }
    ASSERT_EQ(ec, asio::error::would_block);
    ASSERT_GT(rest.size(), ::benchgate::tls::detail::kRecordPlaintext);
    const std::string head(static_cast<const char*>(rest.data()),
                           ::benchgate::tls::detail::kRecordPlaintext);
    const std::vector<asio::const_buffer> rest_pieces =
        pieces(sent, sent.size() - rest.size(), 100);
    write_ec = asio::error::would_block;
    kept_block_back = false;
    write(rest_pieces, [&](const error_code& e, size_t) {
      write_ec = e;
      void* next = size_class_pool::allocate(head.size(), nullptr);
      kept_block_back = std::memcmp(next, head.data(), head.size()) == 0;
      size_class_pool::release(next, nullptr);
    });
    // A socket new to waiting for writes completes the first wait at once (Asio's "try at
    // once" flag, common/net/edge_wait.h): the write tries again and waits for the next edge.
    io_.restart();
    io_.poll();
    ASSERT_EQ(write_ec, asio::error::would_block) << "the write did not wait for the socket";
    server_->next_layer().close();
    run();
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
  size_t records_written_ = 0;
  BIO* held_ = nullptr;  // owned by the client's SSL (SSL_set0_wbio)
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

TEST_F(TlsPair, SmallBuffersWrittenTogetherLeaveInOneRecordEach16KiB) {
  count_records_written();
  // 4 KiB in 128 buffers of 32 bytes (a frame header and its payload, 64 times over): one
  // record, where a record per buffer would be 128.
  const std::string small = pattern(128 * 32);
  const std::vector<asio::const_buffer> small_pieces = pieces(small, 0, 32);
  EXPECT_EQ(records_for([&](auto done) { server_->async_write_all(small_pieces, done); }, small),
            1u);

  // 40 KB in 1,000-byte buffers: as many records as 16 KiB of plaintext make.
  const std::string larger = pattern(40'000);
  const std::vector<asio::const_buffer> larger_pieces = pieces(larger, 0, 1000);
  EXPECT_EQ(records_for([&](auto done) { server_->async_write_all(larger_pieces, done); }, larger),
            3u);

  // asio::async_write hands the stream 16 buffers at a time: a record each.
  EXPECT_EQ(records_for([&](auto done) { asio::async_write(*server_, small_pieces, done); }, small),
            8u);

  // One buffer is written as it is, a record per 16 KiB, whatever its size.
  EXPECT_EQ(records_for([&](auto done) { asio::async_write(*server_, asio::buffer(larger), done); },
                        larger),
            3u);
}

TEST_F(TlsPair, AGatheredWriteThatWaitsForTheSocketDeliversEveryByteInOrder) {
  // Far more than the socket buffers hold while the client reads nothing: 4 MiB fitted whole
  // (no would_block) whenever another process kept a core busy.
  const std::string sent = pattern(8 << 20);
  asio::const_buffer rest = asio::buffer(sent);
  error_code ec;
  while (rest.size() > 0) {
    rest += server_->write_some(rest, ec);
    if (ec) break;
  }
  ASSERT_EQ(ec, asio::error::would_block);
  // The rest as 100-byte pieces: every record is gathered, and the first ones wait for the
  // socket while the thread's gather buffer is written over.
  const std::vector<asio::const_buffer> rest_pieces = pieces(sent, sent.size() - rest.size(), 100);
  error_code write_ec = asio::error::would_block;
  server_->async_write_all(rest_pieces, [&](const error_code& e, size_t) { write_ec = e; });
  const auto gather = ::benchgate::tls::detail::gather_buffer();
  std::memset(gather.data(), 0xEE, gather.size());
  EXPECT_TRUE(receive(sent.size()) == sent);
  EXPECT_FALSE(write_ec) << write_ec.message();
}

TEST_F(TlsPair, AWriteThatWaitedGivesTheBytesItKeptBackBeforeItsHandlerRuns) {
  // Not the pattern of the other tests: a block another test gave back never holds these bytes.
  std::string sent(8 << 20, '\0');
  for (size_t i = 0; i < sent.size(); ++i)
    sent[i] = static_cast<char>('A' + (i * 13 + i / 97) % 26);
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
  ASSERT_GT(rest.size(), ::benchgate::tls::detail::kRecordPlaintext);
  // 100-byte pieces: the write's first record is gathered, and kept in a 16 KiB block of the
  // thread's pool (common/util/size_class_pool.h) while it waits for the socket.
  const std::string head(static_cast<const char*>(rest.data()),
                         ::benchgate::tls::detail::kRecordPlaintext);
  const std::vector<asio::const_buffer> rest_pieces = pieces(sent, sent.size() - rest.size(), 100);
  error_code write_ec = asio::error::would_block;
  size_t written = 0;
  bool kept_block_back = false;
  server_->async_write_some(rest_pieces, [&](const error_code& e, size_t n) {
    write_ec = e;
    written = n;
    // The pool hands out the block given back last first: the kept block, if it is back.
    void* next = size_class_pool::allocate(head.size(), nullptr);
    kept_block_back = std::memcmp(next, head.data(), head.size()) == 0;
    size_class_pool::release(next, nullptr);
  });
  std::string received(synchronous, '\0');
  error_code read_ec = asio::error::would_block;
  asio::async_read(*client_, asio::buffer(received),
                   [&](const error_code& e, size_t) { read_ec = e; });
  run();
  ASSERT_FALSE(read_ec) << read_ec.message();
  ASSERT_FALSE(write_ec) << write_ec.message();
  EXPECT_GT(written, 0u);
  EXPECT_TRUE(kept_block_back) << "the write's kept bytes were still held when its handler ran";
}

// A write closed on while it waits (a cancel completes the wait the same way) gives its kept
// bytes back before its handler runs too: the handler may start the next write.
TEST_F(TlsPair, AWriteSomeClosedWhileItWaitsGivesTheBytesItKeptBackBeforeItsHandlerRuns) {
  error_code write_ec;
  bool back = false;
  ASSERT_NO_FATAL_FAILURE(close_while_waiting(
      [&](const auto& buffers, auto handler) { server_->async_write_some(buffers, handler); },
      write_ec, back));
  EXPECT_EQ(write_ec, asio::error::operation_aborted) << write_ec.message();
  EXPECT_TRUE(back) << "the write's kept bytes were still held when its handler ran";
}

TEST_F(TlsPair, AWriteAllClosedWhileItWaitsGivesTheBytesItKeptBackBeforeItsHandlerRuns) {
  error_code write_ec;
  bool back = false;
  ASSERT_NO_FATAL_FAILURE(close_while_waiting(
      [&](const auto& buffers, auto handler) { server_->async_write_all(buffers, handler); },
      write_ec, back));
  EXPECT_EQ(write_ec, asio::error::operation_aborted) << write_ec.message();
  EXPECT_TRUE(back) << "the write's kept bytes were still held when its handler ran";
}

TEST_F(TlsPair, OneReadReturnsEveryRecordTheSocketBrought) {
  // 20 records of 50 bytes, sent in one write of the client's socket.
  SSL* client = client_->native_handle();
  ASSERT_NO_FATAL_FAILURE(hold_client_output());
  const std::string sent = pattern(20 * 50);
  for (size_t i = 0; i < 20; ++i) {
    size_t written = 0;
    ASSERT_EQ(SSL_write_ex(client, sent.data() + i * 50, 50, &written), 1);
  }
  ASSERT_NO_FATAL_FAILURE(send_held());
  std::string received(4096, '\0');
  error_code ec;
  const size_t got = server_->read_some(asio::buffer(received), ec);
  ASSERT_FALSE(ec) << ec.message();
  ASSERT_EQ(got, sent.size());
  EXPECT_TRUE(received.substr(0, got) == sent);
}

TEST_F(TlsPair, TheStartOfARecordAloneIsNotBufferedInputTheRestMakesTheSocketReadable) {
  // The client's record goes into memory instead of its socket, and half of it is sent.
  ASSERT_NO_FATAL_FAILURE(hold_client_output());
  const std::string sent = pattern(100);
  size_t written = 0;
  ASSERT_EQ(SSL_write_ex(client_->native_handle(), sent.data(), sent.size(), &written), 1);
  std::vector<char> record;
  ASSERT_NO_FATAL_FAILURE(take_held(record));
  const size_t half = record.size() / 2;
  asio::write(client_->next_layer(), asio::buffer(record.data(), half));

  wait_readable();
  std::string received(sent.size(), '\0');
  error_code ec;
  EXPECT_EQ(server_->read_some(asio::buffer(received), ec), 0u);
  EXPECT_EQ(ec, asio::error::would_block);
  // OpenSSL holds half a record and the socket is empty: a caller that took this for input
  // would read again and again until the rest came.
  EXPECT_FALSE(server_->has_buffered_input());

  asio::write(client_->next_layer(), asio::buffer(record.data() + half, record.size() - half));
  // A wait may complete for an edge the reactor saw earlier: the caller then reads again.
  size_t got = 0;
  for (int wait = 0; wait < 3 && got == 0; ++wait) {
    error_code wait_ec = asio::error::would_block;
    server_->async_wait_readable([&](const error_code& e) { wait_ec = e; });
    run();
    ASSERT_FALSE(wait_ec);
    got = server_->read_some(asio::buffer(received), ec);
  }
  EXPECT_EQ(got, sent.size());
  EXPECT_FALSE(ec) << ec.message();
  EXPECT_TRUE(received == sent);
}

TEST_F(TlsPair, ACloseNotifyBehindTheLastBytesIsBufferedInputAndTheNextReadIsEndOfStream) {
  // Bytes and the client's close_notify in one write of its socket; the client keeps TCP open
  // and waits for ours (a two-way shutdown).
  SSL* client = client_->native_handle();
  ASSERT_NO_FATAL_FAILURE(hold_client_output());
  const std::string sent = pattern(100);
  size_t written = 0;
  ASSERT_EQ(SSL_write_ex(client, sent.data(), sent.size(), &written), 1);
  ASSERT_EQ(SSL_shutdown(client), 0);
  ASSERT_NO_FATAL_FAILURE(send_held());

  std::string received(4096, '\0');
  error_code ec;
  ASSERT_EQ(server_->read_some(asio::buffer(received), ec), sent.size());
  ASSERT_FALSE(ec) << ec.message();
  // The socket has nothing more: only a read without waiting reports the close.
  EXPECT_TRUE(server_->has_buffered_input());
  EXPECT_EQ(server_->read_some(asio::buffer(received), ec), 0u);
  EXPECT_EQ(ec, asio::error::eof);
}

TEST_F(TlsPair, ABadRecordBehindTheLastBytesIsReportedByTheNextReadAsItself) {
  // Two records in one write of the client's socket, the second's authentication tag broken.
  SSL* client = client_->native_handle();
  ASSERT_NO_FATAL_FAILURE(hold_client_output());
  const std::string sent = pattern(100);
  size_t written = 0;
  ASSERT_EQ(SSL_write_ex(client, sent.data(), sent.size(), &written), 1);
  ASSERT_EQ(SSL_write_ex(client, sent.data(), sent.size(), &written), 1);
  ASSERT_NO_FATAL_FAILURE(send_held([](std::vector<char>& records) { records.back() ^= 1; }));

  std::string received(4096, '\0');
  error_code ec;
  ASSERT_EQ(server_->read_some(asio::buffer(received), ec), sent.size());
  ASSERT_FALSE(ec) << ec.message();
  EXPECT_TRUE(server_->has_buffered_input());
  EXPECT_EQ(server_->read_some(asio::buffer(received), ec), 0u);
  EXPECT_EQ(ec.category(), asio::error::get_ssl_category()) << ec.message();
  EXPECT_EQ(ERR_GET_REASON(static_cast<unsigned long>(ec.value())),
            SSL_R_DECRYPTION_FAILED_OR_BAD_RECORD_MAC)
      << ec.message();
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
