// The live line on a terminal shows the whole run's progress: workload k of N, elapsed time
// and the time the planned windows still need.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <pty.h>
#include <unistd.h>

#include <string>

#include "orchestrator/report/rate_text.h"
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

// One definition per figure: the live line and the plain log line at a window's end write a
// rate and a latency as the workload's table does (rate_text, latency_text), so a rate under 10
// per second is not rounded to a whole number there and kept to its digits in the table.
TEST(TerminalLiveLine, WritesRatesAndLatenciesAsTheTableDoes) {
  int master = -1, slave = -1;
  ASSERT_EQ(::openpty(&master, &slave, nullptr, nullptr, nullptr), 0);
  std::FILE* live = ::fdopen(slave, "w");
  std::FILE* out = std::tmpfile();
  scenario::Scenario s;
  s.name = "sc";
  scenario::Workload w;
  w.name = "slow";
  w.duration_ns = 2'000'000'000;
  w.repetitions = 1;
  s.workloads.push_back(w);
  const engine::WindowInfo rep1{true, 1, 1, 2'000'000'000};
  {
    TerminalReport report(out, live);
    report.scenario_started(s);
    report.window_started(w, rep1);
    report.progress(w, rep1, 2.5, 1'234'000, 1'000'000'000);
    std::fflush(live);
    const std::string text = drain(master);
    EXPECT_NE(text.find("  " + rate_text(2.5) + " ops/s  p99 " + latency_text(1'234'000) + " |"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("  2.5 ops/s  p99 1.23ms |"), std::string::npos) << text;
    // No p99 yet: "-", as the table writes a latency not measured.
    report.progress(w, rep1, 0.001, 0, 1'000'000'000);
    std::fflush(live);
    const std::string none = drain(master);
    EXPECT_NE(none.find("  0.001 ops/s  p99 - |"), std::string::npos) << none;
  }
  std::fclose(live);
  ::close(master);
  // Not a terminal: one plain line per window, its figures as the table's row writes them.
  std::FILE* log = std::tmpfile();
  {
    TerminalReport report(out, log);
    report.scenario_started(s);
    results::Repetition rep;
    rep.successes = rep.operations = 5;
    rep.duration_ns = rep.data_window_ns = 2'000'000'000;
    rep.latency.record(1'000'000);
    report.window_finished(w, rep1, &rep);
    std::fflush(log);
    std::rewind(log);
    std::string text(4096, '\0');
    text.resize(std::fread(text.data(), 1, text.size(), log));
    EXPECT_NE(text.find("[sc] slow rep 1/1: " + rate_text(rep.ops_per_second()) + " ops/s, p99 " +
                        latency_text(rep.latency_at(99)) + ", errors 0\n"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("[sc] slow rep 1/1: 2.5 ops/s, p99 1ms, errors 0\n"), std::string::npos)
        << text;
  }
  std::fclose(log);
  std::fclose(out);
}

}  // namespace
}  // namespace benchgate::report
