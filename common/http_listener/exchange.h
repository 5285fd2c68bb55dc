// What benchgate's HTTP listener (http_listener.h) hands its handler and takes back:
// one request's method, path and query, and the answer's status, headers and body. The
// listener adds Content-Length and Connection itself, and leaves out the body of a HEAD.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace benchgate::http_listener {

struct Request {
  std::string method;  // "GET", "HEAD", "POST", ... as sent
  std::string path;    // the target before '?', percent-decoded ("/runs/1")
  std::string query;   // the raw query string after '?', as sent ("" when none)
};

struct Answer {
  int status = 200;
  // In the order they are sent, after the status line (no Content-Length, no Connection).
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
};

// Called on the listener's one thread for each request, one at a time: a long answer delays
// the other connections' answers (never their reading), so it should be quick.
using Handler = std::function<Answer(const Request&)>;

}  // namespace benchgate::http_listener
