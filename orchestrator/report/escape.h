// Escaping text for XML and HTML: one function for every markup the orchestrator writes (the
// JUnit XML, the SVG charts, the HTML report and the web pages of `serve`), so that a name from
// a scenario file or a client reads the same, and is as safe, in each of them.
#pragma once

#include <string>

namespace benchgate::report {

// Text for XML/HTML content and attribute values: & < > " ' as entities (' as &#39;, which
// HTML 4 knows and &apos; is not), and every control character XML 1.0 forbids (all below
// 0x20 but tab, newline and carriage return) as a space.
std::string escape(const std::string& text);

}  // namespace benchgate::report
