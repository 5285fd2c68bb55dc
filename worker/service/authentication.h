// Token authentication in front of a Worker service. gRPC C++ cannot reject a call from a
// server interceptor, and an AuthMetadataProcessor needs secure (TLS) credentials, so the
// check sits in a service that wraps the real one: every RPC first checks the
// `authorization: Bearer <token>` metadata and only then reaches the wrapped service. An RPC
// this class does not override answers UNIMPLEMENTED, so a method added to the proto later is
// closed until it is wrapped here, never open.
#pragma once

#include <grpcpp/grpcpp.h>

#include <string>

#include "benchgate/v1/worker.grpc.pb.h"

namespace benchgate::worker {

class AuthenticatingWorkerService final : public v1::Worker::Service {
 public:
  // `inner` must outlive this service; `token` is non-empty.
  AuthenticatingWorkerService(v1::Worker::Service& inner, std::string token)
      : inner_(inner), token_(std::move(token)) {}

  grpc::Status Describe(grpc::ServerContext* context, const v1::DescribeRequest* request,
                        v1::DescribeResponse* response) override;
  grpc::Status Run(grpc::ServerContext* context,
                   grpc::ServerReaderWriter<v1::RunEvent, v1::RunCommand>* stream) override;

 private:
  // OK when the call carries the token; otherwise UNAUTHENTICATED, after a warning in the log
  // that names the peer and the method (never what was presented).
  grpc::Status authenticate(const grpc::ServerContext& context, const char* method) const;

  v1::Worker::Service& inner_;
  const std::string token_;
};

}  // namespace benchgate::worker
