// Client text (a key, a value, a table name, a URL, a unit value) as an error message may quote
// it. serve passes the scenario loader's messages to its clients, the router and the CLI print
// theirs, and a terminal shows them: a value with a line break, an escape sequence or a NUL must
// neither forge a line nor colour one. In common/ because the unit parsers (common/units/)
// quote their input too.
#pragma once

#include <string>
#include <string_view>

namespace benchgate {

// `text` with everything that does not print as itself escaped visibly: a line break, carriage
// return and tab as \n, \r and \t, any other ASCII control character (NUL, ESC, DEL) and each
// byte of invalid UTF-8 as \xHH (\x1b), and the code points of valid UTF-8 that act rather than
// print (C1 controls, line and paragraph separators, the bidi controls that reorder a line) as
// \uHHHH. Printable ASCII, a backslash included, and other valid UTF-8 stay as they are: a path
// "C:\temp" reads as written, and toml++'s own messages, which escape this way already, are
// shown through here unchanged. Every message of the scenario loader and of the unit parsers
// that quotes client text quotes it through here.
std::string shown_text(std::string_view text);

// Whether `text` prints as itself: nothing in it that shown_text escapes. The one rule for
// every name and value a client gives that is stored or quoted back: a submitted file's name,
// a run's commit, branch and labels.
inline bool prints_as_itself(std::string_view text) { return shown_text(text) == text; }

// A text that may span lines (a stored error ending with a child's stderr, a job's output as
// `run --server` prints it): each of its text_lines (common/util/text_lines.h) through
// shown_text, joined by '\n' followed by `indent`, so that it reads as the lines written, not as
// one line of literal \n, while an escape sequence, a carriage return or a bell in a line is
// shown escaped. With `keep_last_break`, a text that ends with a line break ends with one.
std::string shown_lines(std::string_view text, const std::string& indent = "",
                        bool keep_last_break = false);

}  // namespace benchgate
