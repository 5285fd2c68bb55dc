// The live line on a terminal shows the whole run's progress: workload k of N, elapsed time
// and the time the planned windows still need.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <pty.h>
#include <unistd.h>

#include <string>

#include "orchestrator/report/terminal_report.h"

namespace benchgate::report {
namespace {

// Everything written to the terminal so far.
std::string drain(int master) {
  std::string out;
  char buffer[4096];
  ::fcntl(master, F_SETFL, O_NONBLOCK);
  ssize_t n;
  while ((n = ::read(master, buffer, sizeof buffer)) > 0)
    out.append(buffer, static_cast<size_t>(n));
  return out;
}

TEST(TerminalLiveLine, ShowsWorkloadKOfNElapsedAndTheTimeLeft) {
  int master = -1, slave = -1;
  ASSERT_EQ(::openpty(&master, &slave, nullptr, nullptr, nullptr), 0);
  std::FILE* live = ::fdopen(slave, "w");
  std::FILE* out = std::tmpfile();
  {
    TerminalReport report(out, live);
    scenario::Scenario s;
    s.name = "sc";
    for (const char* name : {"a", "b", "c"}) {
      scenario::Workload w;
      w.name = name;
      w.warmup_ns = 1'000'000'000;
      w.duration_ns = 2'000'000'000;
      w.repetitions = 2;
      s.workloads.push_back(w);
    }
    report.scenario_started(s);  // planned: 3 x (1 s + 2 x 2 s) = 15 s
    engine::WindowInfo warmup{false, 0, 2, 1'000'000'000};
    engine::WindowInfo rep1{true, 1, 2, 2'000'000'000};
    report.window_started(s.workloads[0], warmup);
    report.window_finished(s.workloads[0], warmup, nullptr);
    report.window_started(s.workloads[0], rep1);
    report.window_finished(s.workloads[0], rep1, nullptr);
    report.window_started(s.workloads[1], warmup);
    report.progress(s.workloads[1], warmup, 1000, 50'000, 500'000'000);
    std::fflush(live);
    const std::string text = drain(master);
    EXPECT_NE(text.find("[sc] a warm-up  starting | workload 1/3, "), std::string::npos) << text;
    EXPECT_NE(text.find("about 15.0s left"), std::string::npos) << text;
    EXPECT_NE(text.find("[sc] a rep 1/2  starting | workload 1/3, "), std::string::npos) << text;
    EXPECT_NE(text.find("about 14.0s left"), std::string::npos) << text;
    EXPECT_NE(text.find("[sc] b warm-up  starting | workload 2/3, "), std::string::npos) << text;
    EXPECT_NE(text.find("about 12.0s left"), std::string::npos) << text;
    // b's warm-up, half a second in: 15 - 3 (done) - 0.5 s.
    EXPECT_NE(text.find("[sc] b warm-up  0.5s/1.0s  1000 ops/s  p99 50us | workload 2/3, "),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("about 11.5s left"), std::string::npos) << text;
  }
  std::fclose(live);
  std::fclose(out);
  ::close(master);
}

}  // namespace
}  // namespace benchgate::report
