// See metrics_page.h.
#include "orchestrator/metrics/metrics_page.h"

#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

namespace benchgate::metrics {

http_listener::Answer metrics_page(const http_listener::Request& request,
                                   prometheus::Registry& registry) {
  const std::pair<std::string, std::string> text{"Content-Type", "text/plain; charset=utf-8"};
  if (request.path != "/metrics") return {404, {text}, "Not Found: only /metrics is served\n"};
  if (request.method != "GET" && request.method != "HEAD") {
    return {405, {text, {"Allow", "GET, HEAD"}}, "Method Not Allowed: only GET and HEAD\n"};
  }
  return {200, {text}, prometheus::TextSerializer().Serialize(registry.Collect())};
}

}  // namespace benchgate::metrics
