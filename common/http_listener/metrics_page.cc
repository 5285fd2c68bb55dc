// See metrics_page.h.
#include "common/http_listener/metrics_page.h"

#include <prometheus/text_serializer.h>

#include <string>

namespace benchgate::http_listener {

Answer metrics_page(const Request& request, const CollectFamilies& collect) {
  const std::pair<std::string, std::string> text{"Content-Type", "text/plain; charset=utf-8"};
  if (request.path != "/metrics") return {404, {text}, "Not Found: only /metrics is served\n"};
  if (request.method != "GET" && request.method != "HEAD") {
    return {405, {text, {"Allow", "GET, HEAD"}}, "Method Not Allowed: only GET and HEAD\n"};
  }
  return {200,
          {{"Content-Type", std::string(kExpositionContentType)}},
          prometheus::TextSerializer().Serialize(collect())};
}

}  // namespace benchgate::http_listener
