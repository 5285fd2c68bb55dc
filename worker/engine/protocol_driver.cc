#include "worker/engine/protocol_driver.h"

#include "worker/http/http_driver.h"
#include "worker/http2/http2_driver.h"
#include "worker/wamp/wamp_driver.h"

namespace benchgate::worker {

Expected<std::unique_ptr<ProtocolDriver>> make_protocol_driver(const WorkloadSpec& spec,
                                                               const LoadPlan& plan) {
  if (spec.is_wamp()) return wamp::make_wamp_driver(spec, plan);
  if (spec.is_http2()) return http2::make_http2_driver(spec, plan);
  return http::make_http_driver(plan);
}

}  // namespace benchgate::worker
