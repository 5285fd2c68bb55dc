// See http_url.h.
#include "orchestrator/scenario/http_url.h"

#include <arpa/inet.h>

#include <charconv>

namespace benchgate::scenario {

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
  HttpUrl out;
  out.target = target.starts_with('/') ? std::string(target) : "/" + std::string(target);
  if (authority.find('@') != std::string_view::npos) {
    return Error{"a user name or password is not supported (the scrape sends no credentials)",
                 ErrorKind::kInvalidInput};
  }
  const size_t colon = authority.rfind(':');
  const std::string_view host = authority.substr(0, colon);
  if (host.empty()) return Error{"it names no host", ErrorKind::kInvalidInput};
  if (colon != std::string_view::npos) {
    const std::string_view port = authority.substr(colon + 1);
    unsigned value = 0;
    auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
    if (port.empty() || ec != std::errc() || end != port.data() + port.size() || value < 1 ||
        value > 65535) {
      return Error{"its port '" + std::string(port) + "' is not from 1 to 65535",
                   ErrorKind::kInvalidInput};
    }
    out.port = static_cast<uint16_t>(value);
  }
  out.host = host == "localhost" ? "127.0.0.1" : std::string(host);
  in_addr addr{};
  if (::inet_pton(AF_INET, out.host.c_str(), &addr) != 1) {
    return Error{"its host '" + std::string(host) +
                     "' is neither an IPv4 address nor localhost (the scrape connects over IPv4)",
                 ErrorKind::kInvalidInput};
  }
  out.authority = std::string(authority);
  return out;
}

}  // namespace benchgate::scenario
