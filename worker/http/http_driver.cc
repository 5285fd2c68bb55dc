#include "worker/http/http_driver.h"

#include "worker/http/connection.h"

namespace benchgate::worker::http {
namespace {

class HttpDriver : public ProtocolDriver {
 public:
  explicit HttpDriver(const LoadPlan& plan) : plan_(plan) {}
  uint32_t sessions() const override { return plan_.connections; }
  std::unique_ptr<LoadConnection> make_connection(boost::asio::io_context& io, ThreadState& thread,
                                                  uint32_t index) override {
    return std::make_unique<Connection>(io, thread, index);
  }

 private:
  const LoadPlan& plan_;
};

}  // namespace

std::unique_ptr<ProtocolDriver> make_http_driver(const LoadPlan& plan) {
  return std::make_unique<HttpDriver>(plan);
}

}  // namespace benchgate::worker::http
