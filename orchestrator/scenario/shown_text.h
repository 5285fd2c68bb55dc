// Client text (a key, a value, a table name, a URL) as a loader message may quote it. serve
// passes the loader's messages to its clients, and a terminal shows them: a value with a line
// break, an escape sequence or a NUL must neither forge a line nor colour one.
#pragma once

#include <string>
#include <string_view>

namespace benchgate::scenario {

// `text` with everything that does not print as itself escaped visibly: a line break, carriage
// return and tab as \n, \r and \t, any other ASCII control character (NUL, ESC, DEL) and each
// byte of invalid UTF-8 as \xHH (\x1b), and the code points of valid UTF-8 that act rather than
// print (C1 controls, line and paragraph separators, the bidi controls that reorder a line) as
// \uHHHH. Printable ASCII, a backslash included, and other valid UTF-8 stay as they are: a path
// "C:\temp" reads as written, and toml++'s own messages, which escape this way already, are
// shown through here unchanged. Every message of the loader that quotes client text quotes it
// through here.
std::string shown_text(std::string_view text);

}  // namespace benchgate::scenario
