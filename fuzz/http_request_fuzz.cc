// libFuzzer target: the router's HTTP request parser (router/http/request_parser.h) fed the
// input in pieces, as a socket delivers it, until it completes a request or reports an error.
// Limits are small so header_limit and body_limit paths are reached quickly.
#include <cstddef>
#include <cstdint>
#include <string>

#include <boost/asio/buffer.hpp>

#include "router/http/request_parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace http = benchgate::router::http;
  if (size == 0) return 0;
  // The first byte chooses how the stream is split, so splits are fuzzed too.
  const size_t chunk = 1 + data[0] % 64;
  ++data;
  --size;

  http::RouteLimits limits;
  limits.max_body_bytes = 1 << 16;
  limits.max_delay_ms = 1000;
  std::string body;
  // Bodies here stay under the 64 KiB a buffer may hold outside the budget.
  benchgate::router::memory::BufferBudget budget(1 << 20);
  benchgate::router::memory::Reservation reservation(&budget,
                                                     benchgate::router::memory::BudgetUser::http);
  std::string pending;  // what the parser has not consumed yet, like a connection's buffer
  size_t offset = 0;
  // Several requests back to back on one "connection", each with a fresh parser.
  while (offset < size || !pending.empty()) {
    http::RequestParser parser(limits, 1024, 4096, body, reservation);
    bool done = false;
    while (!done) {
      if (offset < size) {
        const size_t n = std::min(chunk, size - offset);
        pending.append(reinterpret_cast<const char*>(data + offset), n);
        offset += n;
      }
      boost::system::error_code ec;
      const size_t used = parser.put(boost::asio::buffer(pending.data(), pending.size()), ec);
      pending.erase(0, used);
      if (ec == boost::beast::http::error::need_more) {
        if (offset >= size) return 0;  // the peer stopped mid-request
        continue;
      }
      if (ec) return 0;  // the connection would answer 4xx and close
      if (parser.is_done()) {
        if (parser.has_request_line()) (void)parser.dispatch();
        done = true;
      } else if (used == 0 && offset >= size) {
        return 0;
      }
    }
  }
  return 0;
}
