#include "orchestrator/grpc/channel.h"

#include <grpcpp/support/client_interceptor.h>

#include "common/security/token.h"
#include "common/util/shown_text.h"
#include "orchestrator/scenario/dial_address.h"

namespace benchgate::grpcutil {
namespace {

grpc::ChannelArguments control_arguments() {
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_ENABLE_HTTP_PROXY, 0);
  args.SetMaxReceiveMessageSize(256 * 1024 * 1024);
  return args;
}

// Adds the authorization metadata to a call's initial metadata. (Call credentials would do
// the same, but gRPC sends those only over TLS channels.)
class BearerInterceptor : public grpc::experimental::Interceptor {
 public:
  explicit BearerInterceptor(std::string header) : header_(std::move(header)) {}
  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    if (methods->QueryInterceptionHookPoint(
            grpc::experimental::InterceptionHookPoints::PRE_SEND_INITIAL_METADATA)) {
      methods->GetSendInitialMetadata()->emplace(std::string(security::kAuthorizationKey), header_);
    }
    methods->Proceed();
  }

 private:
  const std::string header_;
};

class BearerInterceptorFactory : public grpc::experimental::ClientInterceptorFactoryInterface {
 public:
  explicit BearerInterceptorFactory(const std::string& token)
      : header_(std::string(security::kBearerPrefix) + token) {}
  grpc::experimental::Interceptor* CreateClientInterceptor(
      grpc::experimental::ClientRpcInfo*) override {
    return new BearerInterceptor(header_);  // gRPC owns and deletes it
  }

 private:
  const std::string header_;
};

}  // namespace

Expected<void> check_dial_address(const std::string& flag, const std::string& address) {
  return scenario::check_dial_address(flag, address, {.dns_name = true, .unix_path = true});
}

std::shared_ptr<grpc::Channel> make_control_channel(const std::string& address) {
  return grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(),
                                   control_arguments());
}

std::shared_ptr<grpc::Channel> make_worker_channel(const std::string& address,
                                                   const std::string& token) {
  if (token.empty()) return make_control_channel(address);
  std::vector<std::unique_ptr<grpc::experimental::ClientInterceptorFactoryInterface>> factories;
  factories.push_back(std::make_unique<BearerInterceptorFactory>(token));
  return grpc::experimental::CreateCustomChannelWithInterceptors(
      address, grpc::InsecureChannelCredentials(), control_arguments(), std::move(factories));
}

std::unique_ptr<grpc::ClientContext> context_with_timeout(std::chrono::milliseconds timeout) {
  auto context = std::make_unique<grpc::ClientContext>();
  context->set_deadline(std::chrono::system_clock::now() + timeout);
  return context;
}

std::string describe(const grpc::Status& status) {
  static const char* kNames[] = {"OK",
                                 "CANCELLED",
                                 "UNKNOWN",
                                 "INVALID_ARGUMENT",
                                 "DEADLINE_EXCEEDED",
                                 "NOT_FOUND",
                                 "ALREADY_EXISTS",
                                 "PERMISSION_DENIED",
                                 "RESOURCE_EXHAUSTED",
                                 "FAILED_PRECONDITION",
                                 "ABORTED",
                                 "OUT_OF_RANGE",
                                 "UNIMPLEMENTED",
                                 "INTERNAL",
                                 "UNAVAILABLE",
                                 "DATA_LOSS",
                                 "UNAUTHENTICATED"};
  const int code = static_cast<int>(status.error_code());
  std::string name = code >= 0 && code <= 16 ? kNames[code] : std::to_string(code);
  // The peer's own text (a worker's, a router's): escaped as any text a peer sends is shown.
  return status.error_message().empty() ? name : name + ": " + shown_text(status.error_message());
}

}  // namespace benchgate::grpcutil
