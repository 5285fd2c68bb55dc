// See authentication.h.
#include "worker/service/authentication.h"

#include <spdlog/spdlog.h>

#include "common/security/token.h"

namespace benchgate::worker {

grpc::Status AuthenticatingWorkerService::authenticate(const grpc::ServerContext& context,
                                                       const char* method) const {
  const auto& metadata = context.client_metadata();
  const auto found = metadata.find(
      grpc::string_ref(security::kAuthorizationKey.data(), security::kAuthorizationKey.size()));
  const char* problem = "no authorization metadata";
  if (found != metadata.end()) {
    const std::string_view value(found->second.data(), found->second.size());
    const std::string_view presented = security::bearer_token(value);
    if (security::tokens_equal(presented, token_)) return grpc::Status::OK;
    problem = presented.empty() ? "authorization metadata is not 'Bearer <token>'" : "wrong token";
  }
  spdlog::warn("refused {} from {}: {} (UNAUTHENTICATED)", method, context.peer(), problem);
  return {grpc::StatusCode::UNAUTHENTICATED,
          std::string("this worker requires the metadata 'authorization: Bearer <token>' with "
                      "the token of its --token-file (") +
              problem + ")"};
}

grpc::Status AuthenticatingWorkerService::Describe(grpc::ServerContext* context,
                                                   const v1::DescribeRequest* request,
                                                   v1::DescribeResponse* response) {
  if (auto status = authenticate(*context, "/benchgate.v1.Worker/Describe"); !status.ok()) {
    return status;
  }
  return inner_.Describe(context, request, response);
}

grpc::Status AuthenticatingWorkerService::Run(
    grpc::ServerContext* context, grpc::ServerReaderWriter<v1::RunEvent, v1::RunCommand>* stream) {
  // Checked before the first read: an unauthenticated caller cannot even send a spec.
  if (auto status = authenticate(*context, "/benchgate.v1.Worker/Run"); !status.ok()) {
    return status;
  }
  return inner_.Run(context, stream);
}

}  // namespace benchgate::worker
