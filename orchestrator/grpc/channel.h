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

// An address a command is told to connect to over gRPC (`run --server`): the one rule of
// scenario::check_dial_address (scenario/dial_address.h) with every form a gRPC channel dials,
// HOST:PORT, dns:NAME:PORT and unix:PATH (as a server's READY line names it), the error naming
// `flag`.
Expected<void> check_dial_address(const std::string& flag, const std::string& address);

// A control channel to a benchgate.v1.Worker. A non-empty `token` goes with every call on it
// as `authorization: Bearer <token>` metadata (README "Security"), added by a client
// interceptor so that no call site can forget it.
std::shared_ptr<grpc::Channel> make_worker_channel(const std::string& address,
                                                   const std::string& token);

// A context whose deadline is `timeout` from now.
std::unique_ptr<grpc::ClientContext> context_with_timeout(std::chrono::milliseconds timeout);

// "UNAVAILABLE: failed to connect to all addresses" style text for messages; the peer's message
// through shown_text (common/util/shown_text.h), so that it can neither forge nor colour a line.
std::string describe(const grpc::Status& status);

}  // namespace benchgate::grpcutil
