// A READY line without the fields its reader needs: the error quotes the line and says what was
// expected (docs/WORKER_PROTOCOL.md, "Starting and readiness"; README, the router's READY line).
#include <gtest/gtest.h>

#include "orchestrator/sut/builtin_router.h"

namespace benchgate::sut {
namespace {

TEST(ReadyLine, AWorkerLineWithoutGrpcSaysWhatWasExpected) {
  EXPECT_EQ(check_ready_line("worker 0", "READY 127.0.0.1:36877", {"grpc"}),
            "worker 0 printed an unexpected READY line 'READY 127.0.0.1:36877': expected "
            "'READY grpc=HOST:PORT' (no grpc=)");
}

TEST(ReadyLine, TheRouterLineNamesEveryMissingField) {
  EXPECT_EQ(check_ready_line("router", "READY http=127.0.0.1:80", {"http", "control"}),
            "router printed an unexpected READY line 'READY http=127.0.0.1:80': expected "
            "'READY http=HOST:PORT control=HOST:PORT' (no control=)");
  EXPECT_EQ(check_ready_line("router", "READY", {"http", "control"}),
            "router printed an unexpected READY line 'READY': expected "
            "'READY http=HOST:PORT control=HOST:PORT' (no http=, control=)");
}

TEST(ReadyLine, ALineWithEveryFieldIsAccepted) {
  EXPECT_EQ(check_ready_line("worker 1", "READY grpc=127.0.0.1:5", {"grpc"}), "");
  EXPECT_EQ(
      check_ready_line("worker 1", "READY grpc=unix:/run/w.sock", {"grpc"}, kWorkerReadyForms), "");
  EXPECT_EQ(check_ready_line("worker 1", "READY grpc=[::1]:7700", {"grpc"}, kWorkerReadyForms), "");
  EXPECT_EQ(check_ready_line("router", "READY http=127.0.0.1:1 control=127.0.0.1:2 ws=127.0.0.1:3",
                             {"http", "control"}),
            "");
}

// A field must hold an address to connect to (scenario::check_dial_address), not merely be
// there: garbage after the port is refused, shown escaped, and so is a missing port.
TEST(ReadyLine, AFieldThatIsNotAnAddressSaysWhatIsWrongWithIt) {
  EXPECT_EQ(check_ready_line("worker 0", "READY grpc=127.0.0.1:1\x1b[31mxxx", {"grpc"}),
            "worker 0 printed an unexpected READY line 'READY grpc=127.0.0.1:1\\x1b[31mxxx': "
            "grpc= '127.0.0.1:1\\x1b[31mxxx' is not an address to connect to: its port "
            "'1\\x1b[31mxxx' is not a number from 1 to 65535; expected HOST:PORT with a port of 1 "
            "to 65535 "
            "(\"127.0.0.1:7700\", \"[::1]:7700\")");
  EXPECT_EQ(check_ready_line("worker 0", "READY grpc=127.0.0.1:", {"grpc"}, kWorkerReadyForms),
            "worker 0 printed an unexpected READY line 'READY grpc=127.0.0.1:': grpc= "
            "'127.0.0.1:' is not an address to connect to: its port '' is not a number from 1 to "
            "65535; expected HOST:PORT with a port of 1 to 65535 (\"127.0.0.1:7700\", "
            "\"[::1]:7700\") or unix:PATH");
  // The router's fields are TCP addresses only.
  EXPECT_NE(check_ready_line("router", "READY http=unix:/run/r.sock control=127.0.0.1:2",
                             {"http", "control"}),
            "");
  EXPECT_NE(
      check_ready_line("router", "READY http=127.0.0.1 control=127.0.0.1:2", {"http", "control"}),
      "");
  EXPECT_NE(
      check_ready_line("router", "READY http=127.0.0.1:1 control=127.0.0.1:0", {"http", "control"}),
      "");
}

// A field longer than any address is refused cut, not quoted whole (twice): a READY line may
// hold 64 KiB, and its garbage made an error line of about 120 KB.
TEST(ReadyLine, AFieldLongerThanAnyAddressIsQuotedCut) {
  const std::string field = "127.0.0.1:1" + std::string(60000, '0');
  const std::string error = check_ready_line("worker 0", "READY grpc=" + field, {"grpc"});
  EXPECT_LT(error.size(), 1000u) << error.size();
  EXPECT_NE(error.find("grpc= '127.0.0.1:1000"), std::string::npos) << error;
  EXPECT_NE(error.find("' is not an address to connect to: 60011 bytes, longer than any address"),
            std::string::npos)
      << error;
}

}  // namespace
}  // namespace benchgate::sut
