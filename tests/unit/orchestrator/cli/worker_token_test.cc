// The token for workers started elsewhere (orchestrator/cli/worker_token): which addresses are
// warned about when no token is given.
#include "orchestrator/cli/worker_token.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

namespace benchgate::cli {
namespace {

// What token_for_workers wrote on its log for these addresses, with no token file.
std::string warnings_for(const std::vector<std::string>& addresses) {
  char* text = nullptr;
  size_t size = 0;
  FILE* log = ::open_memstream(&text, &size);
  auto token = token_for_workers("", addresses, log);
  std::fclose(log);
  std::string out(text, size);
  std::free(text);
  EXPECT_TRUE(token) << token.message();
  return out;
}

TEST(WorkerToken, OnlyAWorkerReachedOverTheNetworkWithoutATokenIsWarnedAbout) {
  EXPECT_EQ(warnings_for({"127.0.0.1:7800", "[::1]:7800", "localhost:7800"}), "");
  // A Unix socket is this machine's (its host is no "unix" on the network).
  EXPECT_EQ(warnings_for({"unix:/run/benchgate/worker.sock"}), "");
  EXPECT_EQ(warnings_for({"load1:7800"}),
            "warning: the worker at load1:7800 is reached over the network without a token "
            "(start it with --token-file and pass the same file here with "
            "--worker-token-file)\n");
}

}  // namespace
}  // namespace benchgate::cli
