// The reason phrase of an HTTP status (RFC 9110, section 15) for the statuses benchgate's
// servers answer with: the router's responses and serve's pages. One table for both.
#pragma once

#include <string_view>

namespace benchgate::http {

constexpr std::string_view reason_phrase(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 408:
      return "Request Timeout";
    case 413:
      return "Content Too Large";
    case 431:
      return "Request Header Fields Too Large";
    case 500:
      return "Internal Server Error";
    case 501:
      return "Not Implemented";
    case 503:
      return "Service Unavailable";
    default:
      return "Unknown";
  }
}

}  // namespace benchgate::http
