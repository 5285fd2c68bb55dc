// Serialisation of the router's responses straight into a connection's reusable output
// buffer: no response objects, no per-request allocation once the buffer has grown. The
// most frequent answer (/bench/hello on a keep-alive HTTP/1.1 connection) is serialised once.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/http/reason_phrase.h"

namespace benchgate::router::http {

// Whether and how the response names the connection's fate.
enum class ConnectionHeader : uint8_t {
  kNone,       // HTTP/1.1 keep-alive: persistence is the default, no header
  kKeepAlive,  // HTTP/1.0 client that asked for keep-alive
  kClose,      // the server closes after this response
};

inline constexpr std::string_view kHelloBody = "Hello, world";

// "OK", "Not Found", ...; "Unknown" for a status the router never sends.
using ::benchgate::http::reason_phrase;

// Appends the status line and header fields up to and including the blank line. `allow`
// (the Allow field of a 405) and `content_type` are left out when empty.
void append_head(std::string& out, int status, uint64_t content_length,
                 std::string_view content_type, ConnectionHeader connection,
                 std::string_view allow = {});

// The complete /bench/hello response for a keep-alive HTTP/1.1 connection, built once.
std::string_view hello_response();

// Appends a complete response with the reason phrase as a text body (errors and 405s).
void append_error(std::string& out, int status, ConnectionHeader connection,
                  std::string_view allow = {});

// The /bench/bytes pattern: byte i is 'a' + i % 26. pattern_block() is a read-only block of
// whole periods, so a body of any length is a sequence of block prefixes.
std::string_view pattern_block();
void append_pattern(std::string& out, uint64_t n);

}  // namespace benchgate::router::http
