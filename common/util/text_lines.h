// A text's lines, as every report that shows a multi-line text splits it (a gate's explanation
// or a run's error that ends with a child's stderr): the terminal's gate table, the Markdown
// summary's cells and `runs show`. One rule for all of them, so that a text reads as the same
// lines everywhere.
#pragma once

#include <string_view>
#include <vector>

namespace benchgate {

// The lines of `text`: a line ends at \n, \r\n or a lone \r; a last empty line (the text ends
// with a line break) is left out, and an empty text is one empty line. The views point into
// `text`.
inline std::vector<std::string_view> text_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\n' && text[i] != '\r') continue;
    lines.push_back(text.substr(start, i - start));
    if (text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
    start = i + 1;
  }
  if (start < text.size() || lines.empty()) lines.push_back(text.substr(start));
  return lines;
}

}  // namespace benchgate
