// Glob matching with backtracking to the last `*` only: linear in practice, no recursion.
#include "orchestrator/gates/glob.h"

namespace benchgate::gates {

bool glob_match(std::string_view pattern, std::string_view name) {
  size_t p = 0, n = 0;
  size_t star = std::string_view::npos;  // position of the last `*` seen in the pattern
  size_t star_name = 0;                  // where in the name that `*` match currently ends
  while (n < name.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      star_name = n;
    } else if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == name[n])) {
      ++p;
      ++n;
    } else if (star != std::string_view::npos) {
      // Let the last `*` swallow one more character and retry from there.
      p = star + 1;
      n = ++star_name;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

bool is_glob(std::string_view pattern) {
  return pattern.find_first_of("*?") != std::string_view::npos;
}

}  // namespace benchgate::gates
