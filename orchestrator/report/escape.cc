// See escape.h.
#include "orchestrator/report/escape.h"

#include <string_view>

#include "common/util/text_lines.h"

namespace benchgate::report {

std::string escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r') {
          out += ' ';
        } else {
          out += c;
        }
    }
  }
  return out;
}

std::string markdown_cell(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  // The lines as the terminal's gate table and `runs show` split them (text_lines).
  bool first = true;
  for (const std::string_view line : text_lines(text)) {
    if (!first) out += "<br>";
    first = false;
    for (const char c : line) {
      if (c == '|') {
        out += "\\|";
      } else {
        out += c;
      }
    }
  }
  return out;
}

}  // namespace benchgate::report
