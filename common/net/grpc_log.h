// Where gRPC's own log lines go in the worker, the router and `orchestrator serve`: while a
// server starts, nowhere (a failed bind's error tree would bury the one line the program prints,
// net/listen_failure.h); afterwards its errors go to stderr, marked as gRPC's and the program's.
#pragma once

namespace benchgate::net {

// gRPC logs nothing until grpc_errors_to_stderr().
void silence_grpc_log();

// gRPC's errors go to stderr as "PROGRAM: grpc: MESSAGE"; its other lines are dropped.
// `program` ("worker", "router", "serve") must live as long as the process: a string literal.
void grpc_errors_to_stderr(const char* program);

}  // namespace benchgate::net
