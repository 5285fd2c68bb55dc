#include "worker/http2/http2_driver.h"

#include "worker/http2/request_headers.h"
#include "worker/http2/session.h"

namespace benchgate::worker::http2 {
namespace {

class Http2Driver : public ProtocolDriver {
 public:
  Http2Driver(const WorkloadSpec& spec, const LoadPlan& plan)
      : plan_(plan), request_(spec.http, spec.address, plan.tls != nullptr) {}
  uint32_t sessions() const override { return plan_.connections; }
  std::unique_ptr<LoadConnection> make_connection(boost::asio::io_context& io, ThreadState& thread,
                                                  uint32_t index) override {
    return std::make_unique<Session>(io, thread, index, request_);
  }

 private:
  const LoadPlan& plan_;
  const RequestHeaders request_;  // outlives every session (the engine destroys them first)
};

}  // namespace

std::unique_ptr<ProtocolDriver> make_http2_driver(const WorkloadSpec& spec, const LoadPlan& plan) {
  return std::make_unique<Http2Driver>(spec, plan);
}

}  // namespace benchgate::worker::http2
