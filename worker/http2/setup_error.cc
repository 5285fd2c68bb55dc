#include "worker/http2/setup_error.h"

#include <string>

namespace benchgate::worker::http2 {
namespace {

// Boost's error_category has a protected non-virtual destructor by design; the one instance
// below is never deleted through a base pointer.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wnon-virtual-dtor"
class Category : public boost::system::error_category {
 public:
  const char* name() const noexcept override { return "http2_setup"; }
  std::string message(int value) const override {
    switch (static_cast<SetupError>(value)) {
      case SetupError::kNoH2Alpn:
        return "the server did not select h2 by ALPN (HTTP/2 over TLS needs it)";
      case SetupError::kSessionFailed:
        return "nghttp2 could not start the HTTP/2 session";
      case SetupError::kNoSettings:
        return "the connection ended before the server's HTTP/2 SETTINGS";
      case SetupError::kGoaway:
        return "the server sent GOAWAY with its SETTINGS (it is shutting down)";
      case SetupError::kBadFrames:
        return "the server's first bytes were not HTTP/2 (does it speak h2c with prior "
               "knowledge?)";
    }
    return "HTTP/2 setup failed";
  }
};
#pragma GCC diagnostic pop

}  // namespace

const boost::system::error_category& setup_category() {
  static const Category category;
  return category;
}

}  // namespace benchgate::worker::http2
