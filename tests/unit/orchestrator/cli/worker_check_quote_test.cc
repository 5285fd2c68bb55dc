// worker-check's rules quote the worker's own text (its READY line, its Describe name and
// version) as the result checks quote a worker's names: escaped and cut
// (orchestrator/cli/worker_check_command.h quoted_worker_text).
#include <gtest/gtest.h>

#include <string>

#include "orchestrator/cli/worker_check_command.h"

namespace benchgate::cli {
namespace {

TEST(WorkerCheckQuote, AReadyLineAsPrintedStandsInQuotes) {
  EXPECT_EQ(quoted_worker_text("READY grpc=127.0.0.1:43121"), "'READY grpc=127.0.0.1:43121'");
}

// An escape sequence, a carriage return or a line break would colour the check's output or
// forge a PASS line of its own.
TEST(WorkerCheckQuote, ControlCharactersAreShownEscaped) {
  EXPECT_EQ(quoted_worker_text("READY grpc=127.0.0.1:1\x1b[32m\rPASS  every rule\n"),
            "'READY grpc=127.0.0.1:1\\x1b[32m\\rPASS  every rule\\n'");
}

// The orchestrator reads a READY line of up to 64 KiB: the detail shows its first 200 bytes.
TEST(WorkerCheckQuote, ALineOfTenKilobytesIsCutAfter200Bytes) {
  const std::string line = "READY grpc=" + std::string(10'000, 'x');
  EXPECT_EQ(quoted_worker_text(line), "'" + line.substr(0, 200) + "...'");
}

}  // namespace
}  // namespace benchgate::cli
