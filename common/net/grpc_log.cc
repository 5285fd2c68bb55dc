// See grpc_log.h.
#include "common/net/grpc_log.h"

#include <grpc/support/log.h>

#include <atomic>
#include <cstdio>

namespace benchgate::net {
namespace {

// gRPC's log function takes no argument of ours, so the name it prints is kept here; gRPC may
// log from any of its threads.
std::atomic<const char*> g_program{"benchgate"};

void drop(gpr_log_func_args*) {}

void errors_to_stderr(gpr_log_func_args* args) {
  if (args->severity == GPR_LOG_SEVERITY_ERROR) {
    std::fprintf(stderr, "%s: grpc: %s\n", g_program.load(std::memory_order_relaxed),
                 args->message);
  }
}

}  // namespace

void silence_grpc_log() { gpr_set_log_function(drop); }

void grpc_errors_to_stderr(const char* program) {
  g_program.store(program, std::memory_order_relaxed);
  gpr_set_log_function(errors_to_stderr);
}

}  // namespace benchgate::net
