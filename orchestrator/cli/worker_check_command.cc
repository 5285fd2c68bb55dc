#include "orchestrator/cli/worker_check_command.h"

#include <signal.h>
#include <stdlib.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <thread>

#include "common/security/token.h"
#include "common/time/clock.h"
#include "common/units/units.h"
#include "common/util/shown_list.h"
#include "common/util/shown_text.h"
#include "orchestrator/app/bundled_binary.h"
#include "orchestrator/cli/binary_flags.h"
#include "orchestrator/cli/exit_codes.h"
#include "orchestrator/cli/worker_check_spec.h"
#include "orchestrator/grpc/channel.h"
#include "orchestrator/processes/child_process.h"
#include "orchestrator/sut/builtin_router.h"
#include "orchestrator/sut/system_under_test.h"
#include "orchestrator/workers/describe_rules.h"
#include "orchestrator/workers/result_checks.h"
#include "orchestrator/workers/worker_pool.h"

namespace benchgate::cli {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

// The workload: short, bounded, and still enough requests to fill a histogram. Whole seconds,
// because some workers cannot run anything shorter (the wrk adapter: wrk's -d takes seconds).
// The spec itself, per protocol: worker_check_spec.h.
constexpr uint32_t kConnections = kCheckConnections;
constexpr int64_t kWarmupNs = 1'000'000'000;
constexpr int64_t kMeasuredNs = 1'000'000'000;
constexpr int64_t kDrainNs = kCheckDrainNs;
constexpr int64_t kStartLeadNs = 100'000'000;
// How long a worker has to exit after SIGTERM.
constexpr auto kTermGrace = 5s;
// The stream closed while a window runs: `run` half-closes a workload's streams when it ends,
// mid-window too (a failed or interrupted workload), and cancels a stream still open 2 s later
// (workload_runner's kCloseGrace). The window is long enough that a worker which runs it to its
// end instead of stopping is caught; the stream is closed this far into it.
constexpr auto kCloseGrace = 2s;
constexpr int64_t kClosedWindowNs = 10'000'000'000;
constexpr auto kCloseInto = 300ms;
// What the rule needs of the check's --timeout beyond those 2 s: less left, and a stream that
// did not end OK is the check's time running out, not the worker's fault.
constexpr auto kCloseTimeoutMargin = 400ms;

// Prints each rule as it is decided; counts failures.
class Verdicts {
 public:
  bool record(const std::string& rule, bool passed, const std::string& detail) {
    std::printf("%s  %s%s%s\n", passed ? "PASS" : "FAIL", rule.c_str(), detail.empty() ? "" : ": ",
                detail.c_str());
    std::fflush(stdout);
    (passed ? passed_ : failed_)++;
    return passed;
  }
  void skip(const std::string& what) {
    std::printf("SKIP  %s (after an earlier failure)\n", what.c_str());
    ++skipped_;
  }
  int finish() const {
    std::printf("worker-check: %d passed, %d failed, %d skipped\n", passed_, failed_, skipped_);
    return passed() ? kExitOk : kExitGateFailed;
  }
  bool passed() const { return failed_ == 0 && passed_ > 0; }

 private:
  int passed_ = 0;
  int failed_ = 0;
  int skipped_ = 0;
};

// The children's logs (the worker's and the bundled router's stderr) are kept and named when
// a rule failed and the folder holds a log, and removed otherwise, as `run` keeps its log
// folder only on a run error and only when it holds a log (README.md, "Failure behaviour"): a
// worker that could not even be started leaves an empty folder, which names nothing.
// `dir_` is empty when no private folder could be made (the logs then went to the temporary
// folder itself, which is never removed).
class LogFolder {
 public:
  LogFolder() {
    std::string pattern = (fs::temp_directory_path() / "benchgate-worker-check-XXXXXX").string();
    if (::mkdtemp(pattern.data())) dir_ = pattern;
  }
  std::string path() const { return dir_.empty() ? fs::temp_directory_path().string() : dir_; }
  int finish(const Verdicts& verdicts) const {
    const int code = verdicts.finish();
    std::error_code ec;
    if (!verdicts.passed() && (dir_.empty() || !fs::is_empty(dir_, ec))) {
      std::printf("child process logs: %s\n", path().c_str());
    } else if (!dir_.empty()) {
      fs::remove_all(dir_, ec);
    }
    return code;
  }

 private:
  std::string dir_;
};

using RunStream = grpc::ClientReaderWriter<v1::RunCommand, v1::RunEvent>;

// The worker's exit status when it is gone or goes within a moment ("; the worker exited with
// status 1"): a stream that a crash ended says so where the stream's end is reported.
std::string worker_exit(processes::ChildProcess& worker) {
  const auto until = Clock::now() + 1s;
  while (worker.running() && Clock::now() < until) std::this_thread::sleep_for(20ms);
  return worker.running() ? "" : "; the worker " + worker.exit_description();
}

// Why a Run stream gave no `what` ("Ready", "the window's result"): the check's time running out
// while the stream stayed open (every stream's deadline is --timeout's end), or the stream's end,
// with the worker's exit status when it ended because the worker did.
std::string stream_stopped(const std::string& what, const grpc::Status& status,
                           processes::ChildProcess& worker, const std::string& timeout) {
  if (status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED) {
    return "the worker sent no " + what + " before worker-check's --timeout (" + timeout +
           ", for the whole check) ran out";
  }
  return "the stream ended before " + what + ": " + grpcutil::describe(status) +
         worker_exit(worker);
}

// "http1, http2" or "none".
// One window: the command, then events until the result. False when the stream broke.
bool run_window(RunStream& stream, uint32_t index, bool measured, int64_t duration_ns,
                scenario::Protocol protocol, workers::OneResultPerWindow& results,
                processes::ChildProcess& worker, const std::string& timeout, Verdicts& verdicts) {
  const std::string w = "window " + std::to_string(index) + ": ";
  v1::RunCommand command;
  auto* window = command.mutable_window();
  window->set_index(index);
  window->set_measured(measured);
  window->set_start_at_unix_ns(unix_now_ns() + kStartLeadNs);
  window->set_duration_ns(duration_ns);
  if (!verdicts.record(w + "worker accepts the window command", stream.Write(command), "")) {
    return false;
  }
  v1::RunEvent event;
  int progress = 0;
  bool progress_ok = true;
  std::string progress_problem;
  while (stream.Read(&event)) {
    if (event.has_progress()) {
      ++progress;
      int64_t count = 0;
      std::string problem = workers::check_progress(event.progress(), index);
      if (problem.empty()) problem = workers::check_histogram(event.progress().latency(), count);
      if (!problem.empty() && progress_ok) {
        progress_ok = false;
        progress_problem = problem;
      }
      continue;
    }
    if (event.has_ready()) {
      verdicts.record(w + "no second ready", false, "the worker sent ready again");
      continue;
    }
    if (!event.has_result()) {
      verdicts.record(w + "every event is ready, progress or result", false, "an empty event");
      continue;
    }
    // Out of turn, the stream ends here, as `run` fails the workload with the same words.
    if (std::string turn = results.take(event.result().window(), index); !turn.empty()) {
      verdicts.record(w + "one result per window", false, "the worker sent " + turn);
      return false;
    }
    verdicts.record(w + "progress events name the window, an interval not negative, and decode",
                    progress_ok,
                    progress_ok ? std::to_string(progress) + " progress events" : progress_problem);
    workers::WindowFacts facts{index, window->start_at_unix_ns(), duration_ns, kDrainNs};
    for (const auto& outcome : workers::check_window_result(event.result(), facts)) {
      verdicts.record(outcome.rule, outcome.passed, outcome.detail);
    }
    // Beside the rule on the kinds any protocol defines: HTTP counts none of WAMP's.
    if (scenario::is_http(protocol)) {
      const std::string wamp_kinds = check_protocol_error_kinds(event.result(), protocol);
      verdicts.record(
          w + "errors are of " + scenario::to_string(protocol) + "'s kinds, none of WAMP's",
          wamp_kinds.empty(), wamp_kinds);
    }
    return true;
  }
  verdicts.record(w + "one result per window", false,
                  stream_stopped("result for the window", stream.Finish(), worker, timeout));
  return false;
}

// The Run stream part of the check. False when it stopped early: a later step cannot be trusted.
bool check_run_stream(v1::Worker::Stub& stub, const CheckProtocol& protocol,
                      const v1::WorkloadSpec& spec, Clock::time_point until,
                      processes::ChildProcess& worker, const std::string& timeout,
                      Verdicts& verdicts) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + (until - Clock::now()));
  auto stream = stub.Run(&context);
  v1::RunCommand first;
  *first.mutable_spec() = spec;
  if (!verdicts.record("Run stream accepts the spec", stream->Write(first),
                       check_workload_text(protocol))) {
    verdicts.record("Run stream ends with a status", true, grpcutil::describe(stream->Finish()));
    return false;
  }
  v1::RunEvent event;
  if (!stream->Read(&event)) {
    verdicts.record("ready comes first", false,
                    stream_stopped("Ready", stream->Finish(), worker, timeout));
    return false;
  }
  const bool ready = event.has_ready();
  verdicts.record("ready comes first", ready,
                  ready ? std::to_string(event.ready().connections()) + " connections, " +
                              std::to_string(event.ready().threads()) + " threads"
                        : "the first event was not ready");
  if (!ready) {
    context.TryCancel();
    return false;
  }
  // Exactly: more than asked is allowed in `run` only for sessions of a worker's own (WAMP
  // callees, workers/result_checks.h check_ready), which the check's workload has none of (its
  // wamp_rpc calls bench.echo, which the router answers).
  const std::string counted = workers::check_ready(event.ready(), kConnections);
  verdicts.record("ready counts the connections",
                  counted.empty() && event.ready().connections() == kConnections,
                  counted.empty() ? std::to_string(event.ready().connections()) + " of " +
                                        std::to_string(kConnections)
                                  : counted);
  const struct {
    bool measured;
    int64_t duration_ns;
  } windows[] = {{false, kWarmupNs}, {true, kMeasuredNs}, {true, kMeasuredNs}};
  workers::OneResultPerWindow results;
  constexpr uint32_t kLast = std::size(windows) - 1;
  for (uint32_t i = 0; i <= kLast; ++i) {
    if (!run_window(*stream, i, windows[i].measured, windows[i].duration_ns, protocol.protocol,
                    results, worker, timeout, verdicts)) {
      context.TryCancel();
      return false;
    }
  }
  stream->WritesDone();
  std::string extra;  // what came after the last result, the first of it named
  while (stream->Read(&event)) {
    if (!extra.empty()) continue;
    extra = event.has_result() && results.answered(event.result().window())
                ? "the worker sent " + results.take(event.result().window(), kLast)
                : "events after the last result";
  }
  auto status = stream->Finish();
  verdicts.record("stream ends cleanly (OK) after WritesDone", status.ok() && extra.empty(),
                  extra.empty() ? grpcutil::describe(status) : extra);
  return true;
}

// Cancels `context` at `at` unless disarmed first: a deadline for what follows a WritesDone,
// which the synchronous API cannot put on one Read.
class CancelAt {
 public:
  CancelAt(grpc::ClientContext& context, Clock::time_point at)
      : thread_([this, &context, at] {
          std::unique_lock lock(mutex_);
          if (!changed_.wait_until(lock, at, [this] { return disarmed_; })) {
            fired_ = true;
            context.TryCancel();
          }
        }) {}
  ~CancelAt() { disarm(); }
  // True when the context was cancelled.
  bool disarm() {
    {
      std::lock_guard lock(mutex_);
      disarmed_ = true;
      changed_.notify_all();
    }
    if (thread_.joinable()) thread_.join();
    return fired_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  bool disarmed_ = false;
  bool fired_ = false;
  std::thread thread_;
};

// Opens a Run stream and reads its first event; the rule `rule` fails unless it is ready with
// every connection. False when it failed (the stream is then cancelled).
bool open_until_ready(RunStream& stream, grpc::ClientContext& context, const v1::WorkloadSpec& spec,
                      const std::string& rule, processes::ChildProcess& worker,
                      const std::string& timeout, Verdicts& verdicts) {
  v1::RunCommand first;
  *first.mutable_spec() = spec;
  v1::RunEvent event;
  std::string detail;
  if (!stream.Write(first) || !stream.Read(&event)) {
    detail = stream_stopped("Ready", stream.Finish(), worker, timeout);
  } else if (!event.has_ready()) {
    detail = "the first event was not ready";
  } else if (event.ready().connections() != kConnections) {
    detail = std::to_string(event.ready().connections()) + " of " + std::to_string(kConnections) +
             " connections";
  }
  if (verdicts.record(rule, detail.empty(), detail)) return true;
  context.TryCancel();
  return false;
}

// A stream half-closed (WritesDone) while a window runs, as `run` ends a failed or interrupted
// workload: the worker stops the load at once, sends no result for the window and ends the
// stream OK, within the 2 s `run` waits before it cancels (docs/WORKER_PROTOCOL.md, "The Run
// stream", 4). Then the worker is used again, as `run` uses it for the next workload: a new
// stream must get ready and end OK.
void check_close_mid_window(v1::Worker::Stub& stub, const v1::WorkloadSpec& spec,
                            Clock::time_point until, processes::ChildProcess& worker,
                            const std::string& timeout, Verdicts& verdicts) {
  const std::string w = "stream closed mid-window: ";
  {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + (until - Clock::now()));
    auto stream = stub.Run(&context);
    if (!open_until_ready(*stream, context, spec, w + "a new stream gets ready", worker, timeout,
                          verdicts)) {
      return;
    }
    v1::RunCommand command;
    auto* window = command.mutable_window();
    window->set_index(0);
    window->set_measured(false);
    window->set_start_at_unix_ns(unix_now_ns() + kStartLeadNs);
    window->set_duration_ns(kClosedWindowNs);
    if (!verdicts.record(w + "worker accepts the window command", stream->Write(command), "")) {
      context.TryCancel();
      return;
    }
    std::this_thread::sleep_for(std::chrono::nanoseconds(kStartLeadNs) + kCloseInto);
    stream->WritesDone();
    const auto closed_at = Clock::now();
    CancelAt cancel(context, closed_at + kCloseGrace);
    v1::RunEvent event;
    int results = 0;
    while (stream->Read(&event)) results += event.has_result() ? 1 : 0;
    // Judged on when the worker ended the stream, not on whether the timer went off before
    // it was disarmed: Finish may return after the 2 s though the stream ended before them.
    const auto ended_at = Clock::now();
    const auto status = stream->Finish();
    cancel.disarm();
    verdicts.record(w + "no result for the window after WritesDone", results == 0,
                    results == 0 ? "" : std::to_string(results) + " result(s) after WritesDone");
    const CloseVerdict closed =
        judge_close_mid_window(ended_at - closed_at, until - closed_at, status, timeout);
    verdicts.record(w + "the stream ends OK within 2 s of WritesDone", closed.passed,
                    closed.detail);
  }
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + (until - Clock::now()));
  auto stream = stub.Run(&context);
  if (!open_until_ready(*stream, context, spec,
                        w + "after it, the worker takes a new stream and gets ready", worker,
                        timeout, verdicts)) {
    return;
  }
  stream->WritesDone();
  v1::RunEvent event;
  bool extra = false;
  while (stream->Read(&event)) extra = true;
  const auto status = stream->Finish();
  verdicts.record(w + "that new stream ends cleanly (OK) after WritesDone", status.ok() && !extra,
                  extra ? "events after WritesDone" : grpcutil::describe(status));
}

// With a token: a Describe without it must be refused, or the token protects nothing.
void check_token_required(const std::string& address, Verdicts& verdicts) {
  auto bare = v1::Worker::NewStub(grpcutil::make_control_channel(address));
  auto context = grpcutil::context_with_timeout(5s);
  v1::DescribeResponse response;
  const auto status = bare->Describe(context.get(), v1::DescribeRequest{}, &response);
  verdicts.record("refuses a call without the token (UNAUTHENTICATED)",
                  status.error_code() == grpc::StatusCode::UNAUTHENTICATED,
                  status.ok() ? "the call was answered" : grpcutil::describe(status));
}

// SIGTERM to the worker (only its own pid: the contract is about the worker, not its group).
void check_sigterm(processes::ChildProcess& worker, Verdicts& verdicts) {
  if (!worker.running()) {
    verdicts.record("exits on SIGTERM", false, "already gone: " + worker.exit_description());
    return;
  }
  ::kill(worker.pid(), SIGTERM);
  const auto until = Clock::now() + kTermGrace;
  while (worker.running() && Clock::now() < until) std::this_thread::sleep_for(20ms);
  const bool exited = !worker.running();
  verdicts.record("exits on SIGTERM", exited,
                  exited ? worker.exit_description() : "still running after 5 s");
}

}  // namespace

std::string quoted_worker_text(std::string_view text) {
  return "'" + shown_cut(text, ShownList::kItemBytes) + "'";
}

CloseVerdict judge_close_mid_window(std::chrono::nanoseconds ended_after,
                                    std::chrono::nanoseconds left, const grpc::Status& status,
                                    const std::string& timeout) {
  const bool in_time = ended_after <= kCloseGrace;
  if (in_time && status.ok()) return {true, ""};
  if (left < kCloseGrace + kCloseTimeoutMargin) {
    return {false, "worker-check's --timeout (" + timeout +
                       ", for the whole check) ran out: this rule needs 2.4 s of it left after "
                       "WritesDone; give a longer --timeout"};
  }
  if (!in_time) return {false, "still open 2 s after WritesDone (run cancels it then)"};
  return {false, grpcutil::describe(status)};
}

void add_worker_check_command(CLI::App& app, WorkerCheckFlags& flags) {
  auto* check = app.add_subcommand(
      "worker-check", "Conformance test of a worker binary: worker-check -- COMMAND [ARGS...]");
  check
      ->add_option("--timeout", flags.timeout,
                   "Limit for every step but the last: after it the worker gets SIGTERM and up to "
                   "5 s more to exit (the rule 'exits on SIGTERM')")
      ->capture_default_str();
  check
      ->add_option("--protocol", flags.protocol,
                   "The protocol of the check's workload against the bundled router: http1, "
                   "http2 (h2c, prior knowledge), wamp_rpc, wamp_pubsub or wamp_transfer; the "
                   "worker's Describe must list it")
      ->capture_default_str();
  check->add_option("--wamp-transport", flags.wamp_transport,
                    "WAMP protocols only: websocket (the default) or rawsocket");
  check->add_option("--wamp-serializer", flags.wamp_serializer,
                    "WAMP protocols only: json (the default), msgpack or cbor");
  check->add_option("--router-bin", flags.router_binary, kWorkerCheckRouterBinHelp);
  check->add_option("--worker-token-file", flags.token_file,
                    "Send the token in this file (mode 0600, or 0440 with this process's own "
                    "group) on every call, and check that a "
                    "call without it is refused (UNAUTHENTICATED); the command must be given "
                    "the same token, e.g. -- build/bin/worker --token-file FILE");
  check
      ->add_option("command", flags.command,
                   "The worker's command line (after --); --listen 127.0.0.1:0 is appended")
      ->required();
}

int worker_check_command(const WorkerCheckFlags& flags) {
  auto timeout = parse_duration_ns(flags.timeout);
  if (!timeout || *timeout <= 0) {
    std::fprintf(stderr,
                 "error: --timeout '%s': expected a positive duration such as 30s (units: ns, "
                 "us, ms, s, m, h)\n",
                 shown_text(flags.timeout).c_str());
    return kExitInvalidInput;
  }
  if (flags.command.empty() || flags.command[0].empty()) {
    std::fprintf(stderr, "error: no worker command given (worker-check -- COMMAND...)\n");
    return kExitInvalidInput;
  }
  // A program that is not there is the user's typo, not a worker that broke a rule: said as a
  // usage error before anything starts, where 'FAIL worker starts' (exit 1) read in CI as a
  // worker that does not conform.
  if (!processes::find_executable(flags.command[0])) {
    std::fprintf(stderr,
                 "error: worker command '%s': no executable program there (a path, or a name on "
                 "PATH); nothing was started\n",
                 shown_text(flags.command[0]).c_str());
    return kExitInvalidInput;
  }
  const auto protocol =
      parse_check_protocol(flags.protocol, flags.wamp_transport, flags.wamp_serializer);
  if (!protocol) {
    std::fprintf(stderr, "error: %s\n", protocol.message().c_str());
    return kExitInvalidInput;
  }
  std::string token;
  if (!flags.token_file.empty()) {
    auto read = security::read_token_file(flags.token_file);
    if (!read) {
      std::fprintf(stderr, "error: --worker-token-file: %s\n", read.message().c_str());
      return kExitInvalidInput;
    }
    token = std::move(read).value();
  }
  const auto until = Clock::now() + std::chrono::nanoseconds(*timeout);
  const LogFolder logs;
  const std::string log_dir = logs.path();
  Verdicts verdicts;

  processes::SpawnOptions options;
  options.name = "worker";
  options.executable = flags.command[0];
  options.args.assign(flags.command.begin() + 1, flags.command.end());
  options.args.insert(options.args.end(), {"--listen", "127.0.0.1:0"});
  options.stderr_log = log_dir + "/worker.stderr.log";
  auto spawned = processes::ChildProcess::spawn(options);
  if (!verdicts.record("worker starts", static_cast<bool>(spawned),
                       spawned ? "pid " + std::to_string((*spawned)->pid()) : spawned.message())) {
    return logs.finish(verdicts);
  }
  auto& worker = **spawned;

  auto line = worker.wait_ready_line(until);
  auto fields = line ? sut::parse_ready_line(*line) : std::map<std::string, std::string>{};
  // The rule `run` reads it by (sut::check_ready_line): a grpc= field that is an address.
  const std::string wrong =
      line ? sut::check_ready_line("the worker", *line, {"grpc"}, sut::kWorkerReadyForms)
           : line.message();
  if (!verdicts.record("prints READY grpc=HOST:PORT", wrong.empty(),
                       wrong.empty() ? quoted_worker_text(*line) : wrong)) {
    worker.stop(1000ms);
    return logs.finish(verdicts);
  }
  auto stub = v1::Worker::NewStub(grpcutil::make_worker_channel(fields["grpc"], token));
  auto described =
      workers::describe_worker(*stub, "the worker", std::min(until, Clock::now() + 10s));
  bool ok = verdicts.record("answers Describe", static_cast<bool>(described),
                            described ? "name " + quoted_worker_text(described->name()) +
                                            ", version " + quoted_worker_text(described->version())
                                      : described.message());
  if (ok && !token.empty()) check_token_required(fields["grpc"], verdicts);
  if (ok) {
    const auto& protocols = described->protocols();
    const std::string name = scenario::to_string(protocol->protocol);
    ok = verdicts.record(
        "Describe lists protocol " + name + " and load model closed",
        std::find(protocols.begin(), protocols.end(), name) != protocols.end() &&
            std::find(described->load_models().begin(), described->load_models().end(), "closed") !=
                described->load_models().end(),
        "it lists protocols " + workers::described_list(protocols) + "; load models " +
            workers::described_list(described->load_models()));
  }
  if (ok) {
    scenario::RouterConfig router_config;
    auto router = sut::make_system_under_test(
        router_config,
        {app::bundled_binary(flags.router_binary, "router", "BENCHGATE_ROUTER_BIN"), log_dir});
    auto started = router->start(std::min(until, Clock::now() + 10s));
    if (!started) {
      std::fprintf(stderr, "error: the bundled router did not start: %s\n",
                   started.message().c_str());
      verdicts.record("bundled router starts (not the worker's fault)", false, started.message());
    } else if (auto address = scenario::is_http(protocol->protocol)
                                  ? Expected<std::string>(router->address())
                                  : router->wamp_address(protocol->wamp_transport);
               !address) {
      verdicts.record(
          "bundled router serves " + protocol->wamp_transport + " WAMP (not the worker's fault)",
          false, address.message());
    } else {
      const v1::WorkloadSpec spec = check_spec(*protocol, *address);
      if (check_run_stream(*stub, *protocol, spec, until, worker, flags.timeout, verdicts)) {
        check_close_mid_window(*stub, spec, until, worker, flags.timeout, verdicts);
      } else {
        verdicts.skip("the stream closed mid-window");
      }
    }
    router->stop();
  } else {
    verdicts.skip("the Run stream checks");
  }
  stub.reset();
  check_sigterm(worker, verdicts);
  worker.stop(1000ms);  // whatever the worker's group left behind
  return logs.finish(verdicts);
}

}  // namespace benchgate::cli
