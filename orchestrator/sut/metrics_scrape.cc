// See metrics_scrape.h. Boost.Beast over one io_context run on the calling thread: the stream's
// expiry bounds connect, write and read together, so a server that accepts and never answers
// costs the timeout, not a hang.
#include "orchestrator/sut/metrics_scrape.h"

#include <cctype>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/address_v4.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/status.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>

#include "common/units/units.h"
#include "common/util/shown_text.h"

namespace benchgate::sut {

namespace beast = boost::beast;
namespace http = boost::beast::http;

Expected<std::string> http_get_body(const scenario::HttpUrl& url,
                                    std::chrono::milliseconds timeout) {
  boost::system::error_code ec;
  const auto address = boost::asio::ip::make_address_v4(url.host, ec);
  if (ec) return Error{"'" + url.host + "' is not an IPv4 address", ErrorKind::kInvalidInput};
  boost::asio::io_context io;
  beast::tcp_stream stream(io);
  http::request<http::empty_body> request{http::verb::get, url.target, 11};
  request.set(http::field::host, url.authority);
  request.set(http::field::accept, "text/plain;version=0.0.4");
  request.set(http::field::connection, "close");
  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.body_limit(kScrapeBodyLimit);
  boost::system::error_code failure;
  const char* step = "connecting";
  stream.expires_after(timeout);
  stream.async_connect(
      boost::asio::ip::tcp::endpoint(address, url.port), [&](boost::system::error_code e) {
        if (e) {
          failure = e;
          return;
        }
        step = "sending the request";
        http::async_write(stream, request, [&](boost::system::error_code w, size_t) {
          if (w) {
            failure = w;
            return;
          }
          step = "reading the answer";
          http::async_read(stream, buffer, parser,
                           [&](boost::system::error_code r, size_t) { failure = r; });
        });
      });
  io.run();
  if (failure == beast::error::timeout) {
    return Error{"no complete answer within " +
                 format_duration_ns(static_cast<double>(
                     std::chrono::duration_cast<std::chrono::nanoseconds>(timeout).count())) +
                 " (stopped while " + step + ")"};
  }
  if (failure == http::error::body_limit) {
    return Error{"the answer is larger than " + std::to_string(kScrapeBodyLimit >> 20) + " MiB"};
  }
  if (failure) {
    std::string why = failure.message();  // "Connection refused": it ends a sentence of ours
    if (!why.empty()) why[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(why[0])));
    return Error{std::string(step) + ": " + why};
  }
  auto response = parser.release();
  if (response.result() != http::status::ok) {
    // The status's standard reason, not the server's words: they are no business of a
    // client of `orchestrator serve` (prometheus_text.h says why).
    const std::string_view reason = http::obsolete_reason(response.result());
    return Error{"HTTP " + std::to_string(response.result_int()) +
                 (reason == "<unknown-status>" ? std::string() : " " + std::string(reason))};
  }
  return std::move(response.body());
}

Expected<ExposedCounters> scrape_counters(const std::string& url,
                                          std::chrono::milliseconds timeout) {
  const std::string where = "scraping the system under test's metrics at " + shown_text(url);
  auto parsed = scenario::parse_http_url(url);
  if (!parsed) return Error::caused(where, parsed.error());
  auto body = http_get_body(*parsed, timeout);
  if (!body) return Error::caused(where, body.error());
  auto counters = parse_prometheus_counters(*body);
  if (!counters) return Error::caused(where, counters.error());
  return counters;
}

}  // namespace benchgate::sut
