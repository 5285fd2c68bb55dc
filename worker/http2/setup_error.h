// Why an HTTP/2 connection could not be set up beyond TCP and TLS, as an error_code the engine
// words like any connect failure ("cannot connect to ADDRESS: <message>").
#pragma once

#include <boost/system/error_code.hpp>

namespace benchgate::worker::http2 {

enum class SetupError {
  kNoH2Alpn = 1,   // TLS: the server did not select h2 by ALPN
  kSessionFailed,  // nghttp2 refused to make the session or its SETTINGS
  kNoSettings,     // the connection ended before the server's SETTINGS
  kBadFrames,      // the server's first bytes were not HTTP/2
  kGoaway,         // GOAWAY came with the server's SETTINGS: it is going away
};

const boost::system::error_category& setup_category();

inline boost::system::error_code make_error(SetupError e) {
  return {static_cast<int>(e), setup_category()};
}

}  // namespace benchgate::worker::http2
