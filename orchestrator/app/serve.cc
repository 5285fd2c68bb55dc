// See serve.h.
#include "orchestrator/app/serve.h"

#include <grpcpp/grpcpp.h>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "common/net/grpc_log.h"
#include "common/net/host_port.h"
#include "common/net/listen_failure.h"
#include "common/net/owner_only_socket.h"
#include "orchestrator/app/interrupt.h"
#include "orchestrator/app/listen_probe.h"
#include "orchestrator/app/open_files_limit.h"
#include "orchestrator/cli/exit_codes.h"
#include "orchestrator/http_listener/listen_address.h"
#include "orchestrator/metrics/exposition.h"
#include "orchestrator/metrics/metrics_observer.h"
#include "orchestrator/serve/admission.h"
#include "orchestrator/serve/client_paths.h"
#include "orchestrator/serve/job_queue.h"
#include "orchestrator/serve/orchestrator_service.h"
#include "orchestrator/serve/restored_metrics.h"
#include "orchestrator/serve/run_executor.h"
#include "orchestrator/serve/web_pages.h"
#include "orchestrator/store/store.h"
#include "orchestrator/store/testbed.h"

namespace benchgate::app {
namespace fs = std::filesystem;
namespace {

using cli::kExitInvalidInput;
using cli::kExitOk;

int fail(const std::string& message) {
  std::fprintf(stderr, "error: %s\n", message.c_str());
  return kExitInvalidInput;
}

// Removes a folder when it goes out of scope, if it is empty: serve's log folder, on every way
// out of serve (a failed --http or --listen start left it behind), with the failed jobs' logs
// kept (a folder with files in it stays).
class RemovedIfEmpty {
 public:
  explicit RemovedIfEmpty(std::string path) : path_(std::move(path)) {}
  ~RemovedIfEmpty() {
    std::error_code ec;
    fs::remove(path_, ec);
  }
  RemovedIfEmpty(const RemovedIfEmpty&) = delete;
  RemovedIfEmpty& operator=(const RemovedIfEmpty&) = delete;

 private:
  std::string path_;
};

// The gRPC server on `listen`, or nothing with the reason on stderr.
std::unique_ptr<grpc::Server> start_grpc(const std::string& listen,
                                         serve::OrchestratorService& service, int& port) {
  // gRPC would take the socket from a server still listening at a unix:PATH.
  if (auto in_use = net::unix_socket_in_use(listen)) {
    fail(cannot_listen_message("--listen", listen, *in_use));
    return nullptr;
  }
  grpc::ServerBuilder builder;
  // Without SO_REUSEPORT, a second service cannot share the port.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  // The largest submitted scenario with its name and labels: nothing larger is read whole.
  builder.SetMaxReceiveMessageSize(static_cast<int>(serve::kMaxSubmitRequestBytes));
  builder.AddListeningPort(listen, grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(&service);
  // As the worker and the router start theirs: a failed bind's multi-line error tree would
  // bury the one line that names why (common/net/grpc_log.h).
  net::silence_grpc_log();
  std::unique_ptr<grpc::Server> server;
  {
    // The service takes no password: on a unix:PATH the socket's mode (srwx------) is what
    // keeps other local users from submitting and cancelling runs.
    net::OwnerOnlySocketUmask owner_only(listen);
    server = builder.BuildAndStart();
  }
  net::grpc_errors_to_stderr("serve");
  if (!server || port == 0) {
    fail(cannot_listen_message("--listen", listen, net::why_not_listening(listen)));
    return nullptr;
  }
  return server;
}

// Until a signal: every `every_ns` (0: never), while the queue is idle, every scenario of the
// folder is submitted as a scheduled job.
void schedule_until_stopped(serve::JobQueue& queue, const std::string& scenarios_dir,
                            int64_t every_ns) {
  auto next_round = std::chrono::steady_clock::now();
  while (interrupt_signal() == 0) {
    if (every_ns > 0 && std::chrono::steady_clock::now() >= next_round && queue.idle()) {
      std::string problems;
      std::vector<scenario::Scenario> folder = serve::scenarios_in(scenarios_dir, problems);
      // Two files of one name would run as one series: refused at start, and skipped, both,
      // in a round that finds a file added since under a name another holds.
      if (const std::string same = serve::files_with_one_name(folder); !same.empty()) {
        std::map<std::string, int> files_of;
        for (const auto& s : folder) ++files_of[s.name];
        std::erase_if(folder, [&](const scenario::Scenario& s) { return files_of[s.name] > 1; });
        std::fprintf(stderr, "serve: skipped this round: %s\n", same.c_str());
      }
      for (auto& s : folder) {
        uint32_t position = 0;
        bool full = false;
        // The scenario and the file of the folder it is read from.
        const std::string name = s.name + ", " + std::filesystem::path(s.path).filename().string();
        auto job = queue.submit(std::move(s), {}, "scheduled", position, full);
        if (job) {
          std::fprintf(stderr, "serve: scheduled job %llu (%s)\n",
                       static_cast<unsigned long long>((*job)->id()), name.c_str());
        } else if (full) {
          std::fprintf(stderr, "serve: scheduled run of %s skipped: %s\n", name.c_str(),
                       job.message().c_str());
        }
      }
      if (!problems.empty())
        std::fprintf(stderr, "serve: skipped invalid files:\n%s", problems.c_str());
      next_round = std::chrono::steady_clock::now() + std::chrono::nanoseconds(every_ns);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

}  // namespace

int serve(const ServeSettings& settings) {
  // First, before any descriptor is open: every client's connection takes one
  // (open_files_limit.h).
  if (auto raised = raise_open_files_limit(); !raised) {
    std::fprintf(stderr, "warning: %s; gRPC stops accepting clients for good once it is reached\n",
                 raised.message().c_str());
  }
  // Before the database, the kernel is asked: gRPC answers a port in use with a multi-line
  // core log that never names the flag.
  if (auto reason = why_cannot_listen(settings.listen)) {
    return fail(cannot_listen_message("--listen", settings.listen, *reason));
  }
  // The HTTP listeners too (not HOST:PORT, a port in use), and no two listeners on one port:
  // the second said only "port P is in use", its taker unnamed.
  if (auto why =
          http_listener::why_http_cannot_listen("--metrics-listen", settings.metrics_listen)) {
    return fail(*why);
  }
  if (!settings.http_listen.empty()) {
    if (auto why = http_listener::why_http_cannot_listen("--http", settings.http_listen)) {
      return fail(*why);
    }
  }
  if (auto clash = listeners_on_one_port({{"--listen", settings.listen},
                                          {"--metrics-listen", settings.metrics_listen},
                                          {"--http", settings.http_listen}})) {
    return fail(*clash);
  }
  // Once, now: every job runs these files, whatever the service's PATH finds when it starts.
  auto adapter_programs = serve::resolve_adapter_programs(settings.allowed_commands);
  if (!adapter_programs) return fail(adapter_programs.message());
  auto db = open_store(settings.db_path, settings.store);
  if (!db) return fail(db.message());
  // The Promote call's own connection: the job executor's is its job thread's.
  auto promote_db = store::Store::open(settings.db_path, settings.store);
  if (!promote_db) return fail(promote_db.message());

  metrics::MetricsObserver metrics(settings.metrics_scenarios);
  // Before /metrics is up: its first scrape says the last verdicts a restart would forget.
  if (auto restored = serve::restore_metrics(**db, metrics, settings.metrics_scenarios);
      !restored) {
    std::fprintf(stderr, "warning: /metrics: cannot restore the latest stored runs' gauges: %s\n",
                 restored.message().c_str());
  } else if (*restored > 0) {
    std::fprintf(stderr, "serve: /metrics restored the latest stored run of %zu scenario%s\n",
                 *restored, *restored == 1 ? "" : "s");
  }
  auto endpoint = metrics::MetricsEndpoint::start(settings.metrics_listen, metrics.registry());
  if (!endpoint) return fail(endpoint.message());

  // Each job's logs go to a folder of its own inside this one (serve/run_executor.cc).
  const auto made_log_dir = make_log_dir("benchgate-serve");
  if (!made_log_dir) return fail(made_log_dir.message());
  const std::string& log_dir = *made_log_dir;
  // Declared before the queue: it goes after the queue has stopped its job.
  const RemovedIfEmpty log_dir_removed(log_dir);
  engine::EngineOptions options = engine_options(settings.processes, log_dir);
  options.adapter_programs.emplace();
  for (const auto& [tool, program] : *adapter_programs) {
    (*options.adapter_programs)[tool] = program.path;
  }
  store::RunInfo info;
  info.testbed = store::detect_testbed();

  // The service's folders as paths spell them (as given, and absolute: ${scenario_dir}, a
  // child's stderr): what a job shows its client names none of them (serve/client_paths.h).
  serve::RunExecutor executor(
      **db, options, info, metrics,
      serve::service_folders(settings.scenarios_dir, settings.db_path,
                             {options.router_binary, options.worker_binary}));
  serve::JobQueue queue(executor, settings.queue_limits);
  // Before the policy: a submitted scenario's routers are compared with the port it bound.
  std::unique_ptr<serve::WebPages> pages;
  if (!settings.http_listen.empty()) {
    auto started = serve::WebPages::start(settings.http_listen, settings.db_path, settings.store,
                                          queue, executor.live());
    if (!started) return fail(started.message());
    pages = std::move(*started);
  }
  serve::AdmissionPolicy policy{settings.scenarios_dir,
                                settings.allowed_commands,
                                settings.allowed_addresses,
                                settings.processes.worker_addresses,
                                settings.max_run_ns,
                                settings.max_processes,
                                settings.queue_limits.max_waiting,
                                settings.allowed_promotions};
  // As bound: one given port 0 listens on the port the kernel chose. --listen's is known once
  // gRPC listens (listening_at below); a Submit waits for it.
  policy.adapter_programs = *adapter_programs;
  policy.own_listeners = {{"--listen", settings.listen},
                          {"--metrics-listen", (*endpoint)->address()},
                          {"--http", pages ? pages->address() : ""}};
  serve::OrchestratorService service(queue, std::move(policy));
  service.set_store(promote_db->get());
  int port = 0;
  std::unique_ptr<grpc::Server> server = start_grpc(settings.listen, service, port);
  if (!server) return kExitInvalidInput;
  // A Unix socket has no port (gRPC reports 1 for it): it is named as given. HOST:PORT was
  // checked by why_cannot_listen above.
  const std::string address =
      settings.listen.starts_with("unix:")
          ? settings.listen
          : net::join_host_port(net::split_host_port(settings.listen, net::kListenMinPort).host,
                                static_cast<uint16_t>(port));
  service.listening_at(address);
  std::printf("READY grpc=%s metrics=%s%s\n", address.c_str(), (*endpoint)->address().c_str(),
              pages ? (" http=" + pages->address()).c_str() : "");
  std::fflush(stdout);
  std::fprintf(stderr,
               "serve: Orchestrator service on %s, metrics on %s, scenarios from %s, logs of "
               "failed jobs in %s\n",
               address.c_str(), (*endpoint)->url().c_str(), settings.scenarios_dir.c_str(),
               log_dir.c_str());

  schedule_until_stopped(queue, settings.scenarios_dir, settings.every_ns);

  // SIGTERM/SIGINT: the running job sees the signal and stops its children, and its run is
  // recorded as aborted; queued jobs are cancelled; watchers see every job end.
  std::fprintf(stderr, "serve: stopping (signal %d)\n", interrupt_signal());
  pages.reset();
  // A Submit waiting to validate ends now; one validating ends within its second or so (a
  // scenario is at most 4 MiB, its ${port:NAME} names at most 64).
  service.validations().close();
  queue.shutdown();
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(5));
  std::fprintf(stderr, "serve: stopped\n");
  return kExitOk;
}

}  // namespace benchgate::app
