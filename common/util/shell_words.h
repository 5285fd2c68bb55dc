// Words written as a POSIX shell reads them back: a command line that names its arguments
// unambiguously, as `runs show` and the reports list a command system's program and arguments.
#pragma once

#include <cctype>
#include <string>
#include <string_view>
#include <vector>

namespace benchgate {

// `words` joined by spaces, each as it is when it holds only letters, digits and _@%+=:,./-
// (and is not empty), else in single quotes, a quote in it written '\'' ("it's" -> 'it'\''s').
inline std::string shell_words(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& word : words) {
    if (!out.empty()) out += ' ';
    bool plain = !word.empty();
    for (const char c : word) {
      plain = plain && (std::isalnum(static_cast<unsigned char>(c)) ||
                        std::string_view("_@%+=:,./-").find(c) != std::string_view::npos);
    }
    if (plain) {
      out += word;
      continue;
    }
    out += '\'';
    for (const char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    out += '\'';
  }
  return out;
}

}  // namespace benchgate
