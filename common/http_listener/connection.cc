// See connection.h.
#include "common/http_listener/connection.h"

#include <boost/asio/write.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/read.hpp>
#include <exception>
#include <iostream>
#include <utility>

#include "common/http/reason_phrase.h"
#include "common/http_listener/url_coding.h"

namespace benchgate::http_listener {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = beast::http;

namespace {

// What the listener answers itself (a request it cannot read, a handler that failed).
Answer plain(int status, const std::string& text) {
  return {status,
          {{"Content-Type", "text/plain; charset=utf-8"}, {"X-Content-Type-Options", "nosniff"}},
          text + "\n"};
}

// Whether Beast refused the request as malformed (any error of its http category: a bad
// method, target, version, header or length), as opposed to the connection ending.
bool is_parse_error(const boost::system::error_code& ec) {
  return ec && ec.category() == bhttp::make_error_code(bhttp::error::bad_target).category();
}

// Most a connection reads and drops after its last answer.
constexpr size_t kMaxDrainedBytes = 1 << 20;

}  // namespace

Connection::Connection(asio::ip::tcp::socket socket, Connections& shared)
    : stream_(std::move(socket)), buffer_(shared.options.max_header_bytes + 4096), shared_(shared) {
  ++shared_.open;
}

Connection::~Connection() {
  leave();
  --shared_.open;
}

void Connection::start() { read_request(); }

void Connection::close() {
  leave();
  beast::error_code ignored;
  stream_.socket().shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
  stream_.close();
}

void Connection::enter(std::list<Connection*>& list) {
  leave();
  listed_at_ = list.insert(list.end(), this);
  listed_in_ = &list;
}

void Connection::leave() {
  if (listed_in_ == nullptr) return;
  listed_in_->erase(listed_at_);
  listed_in_ = nullptr;
}

void Connection::read_request() {
  parser_.emplace();
  parser_->header_limit(static_cast<uint32_t>(shared_.options.max_header_bytes));
  parser_->body_limit(boost::none);  // never read: a request with a body is answered, then closed
  enter(shared_.waiting);
  stream_.expires_after(shared_.options.request_timeout);
  bhttp::async_read_header(
      stream_, buffer_, *parser_,
      [self = shared_from_this()](beast::error_code ec, size_t) { self->on_request_head(ec); });
}

void Connection::on_request_head(beast::error_code ec) {
  leave();
  if (ec == bhttp::error::header_limit || ec == bhttp::error::buffer_overflow) {
    send(plain(431, "request head larger than " + std::to_string(shared_.options.max_header_bytes) +
                        " bytes"),
         false, false, 11);
    return;
  }
  if (ec == bhttp::error::end_of_stream || ec == bhttp::error::partial_message) return;
  if (is_parse_error(ec)) {
    send(plain(400, "bad request"), false, false, 11);
    return;
  }
  if (ec) return;  // timed out, reset, closed to make room: the connection ends
  const auto& head = parser_->get();
  const std::string method(head.method_string());
  const bool is_head = head.method() == bhttp::verb::head;
  const bool has_body =
      (parser_->content_length() && *parser_->content_length() > 0) || parser_->chunked();
  const bool keep_alive = head.keep_alive() && !has_body;
  if (has_body && (is_head || head.method() == bhttp::verb::get)) {
    // serve's pages and /metrics take no body: refused, and the body read and dropped.
    send(plain(400, "a " + method + " request has no body here"), is_head, false, head.version());
    return;
  }
  const std::string_view target(head.target().data(), head.target().size());
  const size_t question = target.find('?');
  Request request{
      method, url_decode(target.substr(0, question), false),
      question == std::string_view::npos ? "" : std::string(target.substr(question + 1))};
  Answer answer;
  try {
    answer = shared_.handler(request);
  } catch (const std::exception& e) {
    // The reason may name this machine's paths: it goes to the log, not to the client (nor
    // the client's path, which may hold control characters, to the log).
    std::cerr << "http listener: a " << method << " request failed: " << e.what() << "\n";
    answer = plain(500, "internal error");
  } catch (...) {
    std::cerr << "http listener: a " << method << " request failed: an unknown exception\n";
    answer = plain(500, "internal error");
  }
  send(std::move(answer), is_head, keep_alive, head.version());
}

void Connection::send(Answer answer, bool head, bool keep_alive, int version) {
  out_ = "HTTP/1.1 " + std::to_string(answer.status) + " " +
         std::string(benchgate::http::reason_phrase(answer.status)) + "\r\n";
  for (const auto& [name, value] : answer.headers) out_ += name + ": " + value + "\r\n";
  out_ += "Content-Length: " + std::to_string(answer.body.size()) + "\r\n";
  if (!keep_alive) {
    out_ += "Connection: close\r\n";
  } else if (version < 11) {
    out_ += "Connection: keep-alive\r\n";
  }
  out_ += "\r\n";
  if (!head) out_ += answer.body;
  enter(shared_.writing);
  stream_.expires_after(shared_.options.request_timeout);
  asio::async_write(stream_, asio::buffer(out_),
                    [self = shared_from_this(), keep_alive](beast::error_code ec, size_t) {
                      self->on_sent(ec, keep_alive);
                    });
}

void Connection::on_sent(beast::error_code ec, bool keep_alive) {
  leave();
  if (ec) return;
  out_.clear();
  out_.shrink_to_fit();
  if (keep_alive) {
    read_request();
    return;
  }
  beast::error_code ignored;
  stream_.socket().shutdown(asio::ip::tcp::socket::shutdown_send, ignored);
  // One deadline for the whole drain: a client that trickles bytes does not hold it open.
  enter(shared_.draining);
  stream_.expires_after(shared_.options.drain_timeout);
  drain();
}

void Connection::drain() {
  stream_.async_read_some(asio::buffer(sink_),
                          [self = shared_from_this()](beast::error_code ec, size_t got) {
                            self->drained_ += got;
                            if (!ec && self->drained_ < kMaxDrainedBytes) self->drain();
                          });
}

}  // namespace benchgate::http_listener
