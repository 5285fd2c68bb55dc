// gRPC channels to benchgate's own control endpoints (loopback by default): proxies off,
// since a proxy from the environment must never see control traffic.
#pragma once

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <memory>
#include <string>

#include "common/util/expected.h"

namespace benchgate::grpcutil {

std::shared_ptr<grpc::Channel> make_control_channel(const std::string& address);

// An address a command is told to connect to (`run --server`): HOST:PORT with a port of 1 to
// 65535 ("127.0.0.1:7700", "[::1]:7700", "localhost:7700"), or unix:PATH, as a server's READY
// line names it. Anything else is refused, the error naming `flag` and showing the value
// escaped: gRPC would dial a host without a port at a port of its own choosing, and say only
// that the connection failed.
Expected<void> check_dial_address(const std::string& flag, const std::string& address);

// A control channel to a benchgate.v1.Worker. A non-empty `token` goes with every call on it
// as `authorization: Bearer <token>` metadata (README "Security"), added by a client
// interceptor so that no call site can forget it.
std::shared_ptr<grpc::Channel> make_worker_channel(const std::string& address,
                                                   const std::string& token);

// A context whose deadline is `timeout` from now.
std::unique_ptr<grpc::ClientContext> context_with_timeout(std::chrono::milliseconds timeout);

// "UNAVAILABLE: failed to connect to all addresses" style text for messages.
std::string describe(const grpc::Status& status);

}  // namespace benchgate::grpcutil
