// See http_url.h.
#include "orchestrator/scenario/http_url.h"

#include <arpa/inet.h>

#include <optional>

#include "common/net/host_port.h"
#include "common/util/shown_text.h"

namespace benchgate::scenario {
namespace {

constexpr char kPercentHex[] = "0123456789ABCDEF";

bool percent_hex_digit(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// What RFC 3986 lets a path and a query carry as they are: unreserved characters, sub-delims,
// ':', '@', '/' and '?'. Everything else, a blank, CR, LF and bytes outside ASCII among them,
// only percent-encoded: the scrape writes the target into its request line as it is.
bool rfc3986_target_char(char c) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
  return std::string_view("-._~!$&'()*+,;=:@/?").find(c) != std::string_view::npos;
}

// Why `target`, which starts at character `first` (from 1) of the URL, cannot be sent, or
// nothing when it can.
std::optional<Error> target_refusal(std::string_view target, size_t first) {
  for (size_t i = 0; i < target.size(); ++i) {
    const char c = target[i];
    if (c == '%') {
      if (i + 2 >= target.size() || !percent_hex_digit(target[i + 1]) ||
          !percent_hex_digit(target[i + 2])) {
        return Error{"the '%' at character " + std::to_string(first + i) +
                         " is not followed by two hex digits",
                     ErrorKind::kInvalidInput};
      }
      continue;
    }
    if (rfc3986_target_char(c)) continue;
    const auto byte = static_cast<unsigned char>(c);
    const std::string hex{kPercentHex[byte >> 4], kPercentHex[byte & 0xf]};
    return Error{"character " + std::to_string(first + i) + " (byte 0x" + hex +
                     ") must be percent-encoded as %" + hex +
                     ": a path or query carries no blank, control character or byte outside "
                     "ASCII as it is",
                 ErrorKind::kInvalidInput};
  }
  return std::nullopt;
}

}  // namespace

Expected<HttpUrl> parse_http_url(std::string_view url) {
  constexpr std::string_view kScheme = "http://";
  if (!url.starts_with(kScheme))
    return Error{"it does not start with http://", ErrorKind::kInvalidInput};
  std::string_view rest = url.substr(kScheme.size());
  const size_t path = rest.find_first_of("/?#");
  const std::string_view authority = rest.substr(0, path);
  std::string_view target = path == std::string_view::npos ? "/" : rest.substr(path);
  if (target.find('#') != std::string_view::npos) {
    return Error{"a fragment (#...) is never sent to a server", ErrorKind::kInvalidInput};
  }
  if (path != std::string_view::npos) {
    if (auto refused = target_refusal(target, kScheme.size() + path + 1)) return *refused;
  }
  HttpUrl out;
  out.target = target.starts_with('/') ? std::string(target) : "/" + std::string(target);
  if (authority.find('@') != std::string_view::npos) {
    return Error{"a user name or password is not supported (the scrape sends no credentials)",
                 ErrorKind::kInvalidInput};
  }
  // HOST[:PORT] by the parser every benchgate address is read by (common/net/host_port.h).
  const net::HostPortSplit split = net::split_host_optional_port(authority, 80, net::kDialMinPort);
  switch (split.problem) {
    case net::HostPortProblem::kNone:
      break;
    case net::HostPortProblem::kEmptyHost:
      return Error{"it names no host", ErrorKind::kInvalidInput};
    default:
      return Error{split.reason, ErrorKind::kInvalidInput};
  }
  out.port = split.port;
  out.host = split.host == "localhost" ? "127.0.0.1" : split.host;
  in_addr addr{};
  if (split.ipv6 || ::inet_pton(AF_INET, out.host.c_str(), &addr) != 1) {
    return Error{"its host '" + shown_text(split.ipv6 ? "[" + split.host + "]" : split.host) +
                     "' is neither an IPv4 address nor localhost (the scrape connects over IPv4)",
                 ErrorKind::kInvalidInput};
  }
  out.authority = std::string(authority);
  return out;
}

}  // namespace benchgate::scenario
