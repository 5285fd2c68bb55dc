// See errno_text.h.
#include "common/util/errno_text.h"

#include <cctype>
#include <cstring>

namespace benchgate {

std::string lowercase_first(std::string text) {
  if (!text.empty()) text[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(text[0])));
  return text;
}

std::string errno_text(int error) { return lowercase_first(std::strerror(error)); }

}  // namespace benchgate
