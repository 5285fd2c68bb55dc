// Escaping text for XML and HTML (and for a Markdown table's cell): one function for every markup
// the orchestrator writes (the JUnit XML, the SVG charts, the HTML report and the web pages of
// `serve`), so that a name from a scenario file or a client reads the same, and is as safe, in each
// of them.
#pragma once

#include <string>

namespace benchgate::report {

// Text for XML/HTML content and attribute values: & < > " ' as entities (' as &#39;, which
// HTML 4 knows and &apos; is not), and every control character XML 1.0 forbids (all below
// 0x20 but tab, newline and carriage return) as a space.
std::string escape(const std::string& text);

// Text for one cell of a Markdown table (the --markdown summary): '|' as "\\|", and every line
// break inside the text (\n, \r, \r\n; none at its end) as "<br>", which GitHub and GitLab
// render as a break within the cell, so that a multi-line text (a process's stderr tail in a
// gate's explanation) stays in its row: a line break ends a Markdown table row.
std::string markdown_cell(const std::string& text);

}  // namespace benchgate::report
