// See uri.h.
#include "common/wamp/uri.h"

namespace benchgate::wamp {

bool is_valid_uri(std::string_view uri) {
  if (uri.empty() || uri.front() == '.' || uri.back() == '.') return false;
  char previous = 0;
  for (const char c : uri) {
    if (c == '#' || c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
      return false;
    }
    if (c == '.' && previous == '.') return false;
    previous = c;
  }
  return true;
}

}  // namespace benchgate::wamp
