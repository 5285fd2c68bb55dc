// Percent-encoding of URLs as serve's pages read and write them (RFC 3986, section 2.1): the
// value of one query parameter, a path as sent, a text put into a link.
#pragma once

#include <string>
#include <string_view>

namespace benchgate::http_listener {

// `text` with each %XX (two hex digits) turned into its byte, and '+' into a space when
// `plus_is_space` (a query, as an HTML form sends it); a '%' without two hex digits stays.
std::string url_decode(std::string_view text, bool plus_is_space);

// Every byte of `text` other than letters, digits and "$(),-.;_~" written as %xx.
std::string url_encode(std::string_view text);

// The decoded value of the first `key=VALUE` of `query` ("a=1&b=x+y": key "b" gives "x y"),
// the key's letters of either case; empty when there is none.
std::string query_param(std::string_view query, std::string_view key);

}  // namespace benchgate::http_listener
