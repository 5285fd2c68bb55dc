// The adapters' plumbing without a load tool: what each tool is asked to run (and what it
// refuses), running a child process (output, CPU, cancel, deadline), finding a tool on PATH,
// (`worker --adapter` exiting 2 without its tool: adapter_service_test.cc).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include "worker/adapters/tool.h"
#include "worker/adapters/tool_args.h"
#include "worker/adapters/tool_runner.h"

namespace benchgate::worker::adapters {
namespace {

using namespace std::chrono_literals;

WorkloadSpec http_spec() {
  WorkloadSpec spec;
  spec.name = "w";
  spec.address = "127.0.0.1:8080";
  spec.connections = 4;
  spec.threads = 8;
  spec.in_flight = 1;
  spec.http.target = "/bench/hello";
  spec.http.expect_body_bytes = 12;
  return spec;
}

Tool tool(ToolKind kind) {
  return {kind, kind == ToolKind::kH2load ? "h2load" : "wrk", "/usr/bin/x", "1.0"};
}

std::string joined(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& a : argv) out += (out.empty() ? "" : " ") + a;
  return out;
}

TEST(ToolArgs, H2loadGetsConnectionsThreadsPipeliningDurationAndHostAsAuthority) {
  WorkloadSpec spec = http_spec();
  spec.in_flight = 3;
  spec.http.host = "ignored.test";
  spec.http.headers = {{"Host", "example.test"}, {"X-Trace", "1"}};
  EXPECT_EQ(joined(tool_argv(tool(ToolKind::kH2load), spec, 1'500'000'000, "")),
            "/usr/bin/x -c 4 -t 4 --h1 -m 3 -D 1500ms -H :authority: example.test "
            "-H X-Trace: 1 http://127.0.0.1:8080/bench/hello");
}

TEST(ToolArgs, WrkGetsWholeSecondsTheLatencyFlagTheSummaryScriptAndAHostHeader) {
  WorkloadSpec spec = http_spec();
  spec.threads = 2;
  spec.http.host = "example.test";
  EXPECT_EQ(joined(tool_argv(tool(ToolKind::kWrk), spec, 2'000'000'000, "/tmp/s.lua")),
            "/usr/bin/x -c 4 -t 2 -d 2s --latency -s /tmp/s.lua -H Host: example.test "
            "http://127.0.0.1:8080/bench/hello");
}

TEST(ToolArgs, RefusesWhatTheToolsCannotRunNamingIt) {
  auto refused = [](ToolKind kind, WorkloadSpec spec, const std::string& what) {
    auto valid = check_workload(kind, spec);
    ASSERT_FALSE(valid.ok()) << what;
    EXPECT_NE(valid.message().find(what), std::string::npos) << valid.message();
  };
  for (ToolKind kind : {ToolKind::kH2load, ToolKind::kWrk}) {
    EXPECT_TRUE(check_workload(kind, http_spec()).ok());
    WorkloadSpec spec = http_spec();
    spec.rate = 100;
    refused(kind, spec, "open loop (rate > 0)");
    spec = http_spec();
    spec.protocol = "wamp_rpc";
    refused(kind, spec, "protocol 'wamp_rpc'");
    spec = http_spec();
    spec.http.method = "POST";
    refused(kind, spec, "method 'POST' (GET only)");
    spec = http_spec();
    spec.http.request_body_bytes = 10;
    refused(kind, spec, "request body");
    spec = http_spec();
    spec.http.expect_echo = true;
    refused(kind, spec, "echo checks");
    spec = http_spec();
    spec.http.expect_status = 404;
    refused(kind, spec, "expect_status 404");
  }
  WorkloadSpec pipelined = http_spec();
  pipelined.in_flight = 2;
  EXPECT_TRUE(check_workload(ToolKind::kH2load, pipelined).ok());
  refused(ToolKind::kWrk, pipelined, "wrk does not pipeline");
}

TEST(ToolArgs, H2loadRunsHttp2WithStreamsAndTlsByHttpsWithSniAndAlpn) {
  WorkloadSpec spec = http_spec();
  spec.protocol = "http2";
  spec.http2.streams = 10;
  spec.http2.max_frame_size = 65536;
  ASSERT_TRUE(check_workload(ToolKind::kH2load, spec).ok());
  // h2c with prior knowledge is h2load's default for http://; the default window, 2^30, is
  // its -w 30 (2^30 - 1).
  EXPECT_EQ(joined(tool_argv(tool(ToolKind::kH2load), spec, 1'000'000'000, "")),
            "/usr/bin/x -c 4 -t 4 -m 10 -w 30 -W 30 -f 65536 -D 1000ms "
            "http://127.0.0.1:8080/bench/hello");
  spec.tls.enabled = true;
  spec.tls.insecure = true;
  spec.tls.sni = "localhost";
  spec.tls.ciphers = "ECDHE-RSA-AES128-GCM-SHA256";
  spec.tls.alpn = {"h2", "http/1.1"};
  ASSERT_TRUE(check_workload(ToolKind::kH2load, spec).ok());
  EXPECT_EQ(joined(tool_argv(tool(ToolKind::kH2load), spec, 1'000'000'000, "")),
            "/usr/bin/x -c 4 -t 4 -m 10 -w 30 -W 30 -f 65536 -D 1000ms "
            "--ciphers=ECDHE-RSA-AES128-GCM-SHA256 --npn-list=h2,http/1.1 "
            "--connect-to=127.0.0.1:8080 https://localhost:8080/bench/hello");
  // HTTPS/1.1: --h1 and https://.
  WorkloadSpec https = http_spec();
  https.tls.enabled = true;
  https.tls.insecure = true;
  EXPECT_EQ(joined(tool_argv(tool(ToolKind::kH2load), https, 1'000'000'000, "")),
            "/usr/bin/x -c 4 -t 4 --h1 -m 1 -D 1000ms https://127.0.0.1:8080/bench/hello");
}

TEST(ToolArgs, RefusesTlsAndHttp2ThatTheToolsCannotRunAsAsked) {
  auto refused = [](ToolKind kind, WorkloadSpec spec, const std::string& what) {
    auto valid = check_workload(kind, spec);
    ASSERT_FALSE(valid.ok()) << what;
    EXPECT_NE(valid.message().find(what), std::string::npos) << valid.message();
  };
  WorkloadSpec tls = http_spec();
  tls.tls.enabled = true;
  refused(ToolKind::kH2load, tls, "h2load does not verify the server's certificate");
  refused(ToolKind::kWrk, tls, "TLS (tls = true)");
  tls.tls.insecure = true;
  tls.tls.version = "1.3";
  refused(ToolKind::kH2load, tls, "no flag that limits the version");
  tls.tls.version.clear();
  tls.tls.resumption = true;
  refused(ToolKind::kH2load, tls, "tls_resumption");
  WorkloadSpec h2 = http_spec();
  h2.protocol = "http2";
  refused(ToolKind::kWrk, h2, "protocol 'http2'");
  h2.http2.initial_window = 100000;
  refused(ToolKind::kH2load, h2, "initial_window 100000");
  h2.http2.initial_window = 65535;  // 2^16 - 1
  EXPECT_TRUE(check_workload(ToolKind::kH2load, h2).ok());
  h2.new_connection_per_request = true;
  refused(ToolKind::kH2load, h2, "new_connection_per_request");
}

TEST(ToolArgs, RefusesWindowsTheDurationFlagCannotExpress) {
  WindowCommand window{3, true, 0, 1'500'000'000};
  EXPECT_TRUE(check_window(ToolKind::kH2load, window).ok());
  auto wrk = check_window(ToolKind::kWrk, window);
  ASSERT_FALSE(wrk.ok());
  // The length as a scenario writes it, not in nanoseconds.
  EXPECT_EQ(wrk.message(),
            "window 3 (measured): the wrk adapter cannot run a window of 1.5s (wrk -d takes "
            "whole seconds)");
  // The warm-up is named so, not "window 0".
  WindowCommand warm_up{0, false, 0, 1'500'000'000};
  EXPECT_EQ(check_window(ToolKind::kWrk, warm_up).message(),
            "the warm-up window: the wrk adapter cannot run a window of 1.5s (wrk -d takes whole "
            "seconds)");
  window.duration_ns = 2'000'000'000;
  EXPECT_TRUE(check_window(ToolKind::kWrk, window).ok());
  window.duration_ns = 1'000'500;
  EXPECT_EQ(check_window(ToolKind::kH2load, window).message(),
            "window 3 (measured): the h2load adapter cannot run a window of 1.0005ms (h2load -D "
            "takes whole milliseconds)");
}

TEST(ToolRunner, CapturesStdoutStderrExitStatusAndCpu) {
  auto run = run_tool({"/bin/sh", "-c",
                       "echo out; echo err >&2; i=0; "
                       "while [ $i -lt 20000 ]; do i=$((i+1)); done; exit 3"},
                      std::chrono::steady_clock::now() + 30s, {});
  ASSERT_TRUE(run.ok()) << run.message();
  EXPECT_EQ(run->out, "out\n");
  EXPECT_EQ(run->err, "err\n");
  EXPECT_EQ(run->exit_code, 3);
  EXPECT_FALSE(run->succeeded());
  EXPECT_GT(run->cpu_user_ns + run->cpu_system_ns, 0);
  EXPECT_EQ(describe_failure("sh", *run), "sh exited with status 3: err");
}

TEST(ToolRunner, CancellingKillsTheToolAndItsProcessGroup) {
  const auto begun = std::chrono::steady_clock::now();
  int polls = 0;
  // The grandchild sleep shares the tool's process group and holds its stdout open: the run
  // can only end once the whole group is gone.
  auto run =
      run_tool({"/bin/sh", "-c", "sleep 60 & sleep 60"}, begun + 120s, [&] { return ++polls > 5; });
  ASSERT_TRUE(run.ok()) << run.message();
  EXPECT_TRUE(run->cancelled);
  EXPECT_EQ(run->signal, SIGKILL);
  EXPECT_LT(std::chrono::steady_clock::now() - begun, 30s);
}

// Dead: gone, or a zombie waiting for whoever adopted it.
bool process_dead(const std::string& pid) {
  std::ifstream stat("/proc/" + pid + "/stat");
  std::string text;
  if (!std::getline(stat, text)) return true;
  const size_t paren = text.rfind(')');
  return paren != std::string::npos && text.substr(paren + 2, 1) == "Z";
}

TEST(ToolRunner, HelpersTheToolLeftInItsProcessGroupAreKilledWhenItExits) {
  auto run = run_tool({"/bin/sh", "-c", "sleep 60 >/dev/null 2>&1 & echo $!"},
                      std::chrono::steady_clock::now() + 30s, {});
  ASSERT_TRUE(run.ok()) << run.message();
  ASSERT_TRUE(run->succeeded());
  const std::string helper = last_line(run->out);
  ASSERT_FALSE(helper.empty());
  bool dead = false;
  for (auto until = std::chrono::steady_clock::now() + 10s;
       !(dead = process_dead(helper)) && std::chrono::steady_clock::now() < until;) {
    std::this_thread::sleep_for(20ms);
  }
  EXPECT_TRUE(dead) << "helper " << helper << " still runs";
}

TEST(ToolRunner, KillsAToolThatOutlivesItsDeadline) {
  auto run = run_tool({"/bin/sleep", "60"}, std::chrono::steady_clock::now() + 200ms, {});
  ASSERT_TRUE(run.ok()) << run.message();
  EXPECT_TRUE(run->timed_out);
  EXPECT_NE(describe_failure("sleep", *run).find("did not finish"), std::string::npos);
}

// A failed exec is an error of run_tool (adapter_runner_test.cc): a tool that exits 127 ran,
// and is said to have exited so.
TEST(ToolRunner, AToolThatExitsWith127IsSaidToHaveExitedSo) {
  auto run = run_tool({"/bin/sh", "-c", "exit 127"}, std::chrono::steady_clock::now() + 10s, {});
  ASSERT_TRUE(run.ok()) << run.message();
  EXPECT_EQ(run->exit_code, 127);
  EXPECT_EQ(describe_failure("tool", *run), "tool exited with status 127");
}

TEST(ToolRunner, LastLineSkipsTrailingBlankLines) {
  EXPECT_EQ(last_line("a\n  unable to connect  \n\n"), "unable to connect");
  EXPECT_EQ(last_line(""), "");
}

class FakeToolDir : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/benchgate-adapter-test-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  // The folder and whatever fakes a test made in it.
  void TearDown() override {
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
  void fake(const std::string& name, const std::string& script) {
    const std::string path = dir_ + "/" + name;
    std::ofstream(path) << "#!/bin/sh\n" << script << "\n";
    ::chmod(path.c_str(), 0755);
  }
  std::string dir_;
};

TEST_F(FakeToolDir, LocatesAToolOnPathAndReadsItsVersion) {
  fake("h2load", "echo 'h2load nghttp2/9.9.9'");
  fake("wrk", "echo 'wrk 4.2.0 [epoll] Copyright (C) 2012 Will Glozer'; exit 1");
  auto h2load = locate_tool(ToolKind::kH2load, "/nonexistent:" + dir_);
  ASSERT_TRUE(h2load.ok()) << h2load.message();
  EXPECT_EQ(h2load->path, dir_ + "/h2load");
  EXPECT_EQ(h2load->label(), "h2load nghttp2/9.9.9");
  auto wrk = locate_tool(ToolKind::kWrk, dir_);
  ASSERT_TRUE(wrk.ok()) << wrk.message();
  EXPECT_EQ(wrk->version, "4.2.0");
}

TEST_F(FakeToolDir, AnEmptyPathEntryIsNotTheCurrentFolder) {
  // As the orchestrator's lookup, which serve's --allow-command check uses: the tool it
  // approved is the one the worker runs.
  fake("h2load", "echo 'h2load nghttp2/9.9.9'");
  char saved[4096];
  ASSERT_NE(::getcwd(saved, sizeof saved), nullptr);
  ASSERT_EQ(::chdir(dir_.c_str()), 0);
  EXPECT_EQ(find_on_path("h2load", ":/nonexistent"), "");
  EXPECT_EQ(find_on_path("h2load", "/nonexistent:"), "");
  EXPECT_EQ(find_on_path("h2load", "/nonexistent::" + dir_), dir_ + "/h2load");
  ASSERT_EQ(::chdir(saved), 0);
}

TEST_F(FakeToolDir, AToolMissingFromPathIsNamedInTheError) {
  auto missing = locate_tool(ToolKind::kWrk, dir_);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.message(), "wrk is not installed (not found on PATH)");
  fake("h2load", "echo something else");
  EXPECT_FALSE(locate_tool(ToolKind::kH2load, dir_).ok());
}

TEST_F(FakeToolDir, AToolAtAPathIsThatFileNeverLookedUp) {
  // `worker --adapter-program`: the file the service resolved as it started, whatever is on
  // PATH.
  fake("wrk", "echo 'wrk 4.2.0 [epoll] Copyright (C) 2012 Will Glozer'; exit 1");
  auto wrk = tool_at(ToolKind::kWrk, dir_ + "/wrk");
  ASSERT_TRUE(wrk.ok()) << wrk.message();
  EXPECT_EQ(wrk->path, dir_ + "/wrk");
  EXPECT_EQ(wrk->version, "4.2.0");
  auto missing = tool_at(ToolKind::kH2load, dir_ + "/h2load");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.message(), "h2load '" + dir_ + "/h2load': No such file or directory");
  EXPECT_EQ(tool_at(ToolKind::kWrk, dir_).message(),
            "wrk '" + dir_ + "': not an executable regular file");
  // A file of another name is not the tool, whoever named it (review of 222b9ec2).
  fake("curl", "echo 'wrk 4.2.0 [epoll] Copyright (C) 2012 Will Glozer'; exit 1");
  EXPECT_EQ(tool_at(ToolKind::kWrk, dir_ + "/curl").message(),
            "wrk '" + dir_ + "/curl': not a file named wrk");
}

}  // namespace
}  // namespace benchgate::worker::adapters
