#include "common/util/baseline_name.h"

#include "common/util/shown_text.h"

namespace benchgate {

std::string baseline_name_problem(std::string_view name) {
  if (name.empty() || name.size() > 100) return "a baseline name must have 1 to 100 characters";
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '-' || c == '.';
    if (!ok) {
      return "baseline name '" + shown_text(name) +
             "' may contain only letters, digits, '_', '-' and '.'";
    }
  }
  return "";
}

}  // namespace benchgate
