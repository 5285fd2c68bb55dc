#include "common/util/baseline_name.h"

#include "common/util/shown_text.h"

namespace benchgate {

std::string baseline_name_reason(std::string_view name) {
  if (name.empty() || name.size() > 100) return "must have 1 to 100 characters";
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '-' || c == '.';
    if (!ok) return "'" + shown_text(name) + "' may contain only letters, digits, '_', '-' and '.'";
  }
  return "";
}

std::string baseline_name_problem(std::string_view name) {
  const std::string why = baseline_name_reason(name);
  if (why.empty()) return why;
  // The quoted name reads as the noun's: "baseline name 'x' may contain ...".
  return (why.front() == '\'' ? "baseline name " : "a baseline name ") + why;
}

}  // namespace benchgate
