// See serve_command.h.
#include "orchestrator/cli/serve_command.h"

#include <grpcpp/grpcpp.h>
#include <CLI/CLI.hpp>
#include <chrono>
#include <filesystem>
#include <thread>

#include "common/security/token.h"
#include "common/units/units.h"
#include "orchestrator/app/interrupt.h"
#include "orchestrator/app/listen_probe.h"
#include "orchestrator/app/run_setup.h"
#include "orchestrator/cli/exit_codes.h"
#include "orchestrator/cli/worker_token.h"
#include "orchestrator/metrics/exposition.h"
#include "orchestrator/metrics/metrics_observer.h"
#include "orchestrator/serve/admission.h"
#include "orchestrator/serve/job_queue.h"
#include "orchestrator/serve/orchestrator_service.h"
#include "orchestrator/serve/run_executor.h"
#include "orchestrator/serve/web_pages.h"
#include "orchestrator/store/store.h"
#include "orchestrator/store/testbed.h"

namespace benchgate::cli {
namespace fs = std::filesystem;
namespace {

bool stop_requested() { return app::interrupt_signal() != 0; }

}  // namespace

void add_serve_command(CLI::App& app, ServeFlags& flags) {
  auto* serve = app.add_subcommand(
      "serve", "Run as a service: accept runs over gRPC, one at a time, and serve /metrics");
  serve->add_option("--listen", flags.listen, "gRPC Orchestrator service address HOST:PORT")
      ->capture_default_str();
  serve
      ->add_option("--metrics-listen", flags.metrics_listen,
                   "Prometheus /metrics address HOST:PORT")
      ->capture_default_str();
  serve->add_option("--http", flags.http_listen,
                    "Serve read-only web pages (runs, reports, the live job, histories) at "
                    "http://HOST:PORT/; off unless given, e.g. 127.0.0.1:7780");
  serve->add_option("--db", flags.db_path, "SQLite database of every run")->capture_default_str();
  serve
      ->add_option("--scenarios", flags.scenarios_dir,
                   "Folder of scenario files that clients may run by name")
      ->required()
      ->check(CLI::ExistingDirectory);
  serve->add_option("--every", flags.every,
                    "Rerun every scenario of the folder this often (e.g. 1h): continuous "
                    "benchmarking");
  serve->add_option("--allow-command", flags.allowed_commands,
                    "A program a submitted scenario may start: a [router] or [routers.NAME] "
                    "command, a [worker_impls.NAME] command or adapter tool, or look up as "
                    "[routers.NAME] requires (repeatable; a path or a name on PATH). No other "
                    "program is ever started for a client");
  serve->add_option("--allow-address", flags.allowed_addresses,
                    "A HOST:PORT a submitted scenario may reach (address, ready, metrics of "
                    "its system under test; repeatable). Without it a client reaches only "
                    "loopback ports its scenario allocates with ${port:NAME}");
  serve->add_option("--router-bin", flags.router_binary, "Router executable");
  serve->add_option("--worker-bin", flags.worker_binary, "Worker executable");
  serve->add_option("--workers-at", flags.worker_addresses, kWorkersAtHelp)->delimiter(',');
  serve->add_option("--workers", flags.worker_count, kWorkersHelp)->check(CLI::Range(1, 1024));
  serve->add_option("--workers-wait", flags.workers_wait, kWorkersWaitHelp)->capture_default_str();
  serve->add_option("--worker-token-file", flags.worker_token_file, kWorkerTokenFileHelp);
}

int serve_command(const ServeFlags& flags) {
  int64_t every_ns = 0;
  if (!flags.every.empty()) {
    auto every = parse_duration_ns(flags.every);
    if (!every || *every <= 0) {
      std::fprintf(stderr, "error: --every '%s': expected a positive duration such as 1h\n",
                   flags.every.c_str());
      return kExitInvalidInput;
    }
    every_ns = *every;
  }
  // The service's scenarios may name their own [workers] at; --workers alone needs --workers-at.
  auto workers_wait =
      check_workers_flags(flags.worker_count, flags.workers_wait, !flags.worker_addresses.empty());
  if (!workers_wait) {
    std::fprintf(stderr, "error: %s\n", workers_wait.message().c_str());
    return kExitInvalidInput;
  }
  auto worker_token = token_for_workers(flags.worker_token_file, flags.worker_addresses, stderr);
  if (!worker_token) {
    std::fprintf(stderr, "error: %s\n", worker_token.message().c_str());
    return kExitInvalidInput;
  }
  for (const auto& address : {flags.listen, flags.metrics_listen, flags.http_listen}) {
    if (address.empty()) continue;
    if (!security::is_loopback_host(security::host_of(address))) {
      std::fprintf(stderr,
                   "warning: %s is reachable from other machines, and serve has no "
                   "authentication (README \"Security\")\n",
                   address.c_str());
    }
  }
  // Before the database, the kernel is asked: gRPC answers a port in use with a multi-line
  // core log that never names the flag.
  if (auto reason = app::why_cannot_listen(flags.listen)) {
    std::fprintf(stderr, "error: %s\n",
                 app::cannot_listen_message("--listen", flags.listen, *reason).c_str());
    return kExitInvalidInput;
  }
  auto db = app::open_store(flags.db_path);
  if (!db) {
    std::fprintf(stderr, "error: %s\n", db.message().c_str());
    return kExitInvalidInput;
  }

  metrics::MetricsObserver metrics;
  auto endpoint = metrics::MetricsEndpoint::start(flags.metrics_listen, metrics.registry());
  if (!endpoint) {
    std::fprintf(stderr, "error: %s\n", endpoint.message().c_str());
    return kExitInvalidInput;
  }

  // Each job's logs go to a folder of its own inside this one (serve/run_executor.cc).
  const std::string log_dir = app::make_log_dir("benchgate-serve");
  const engine::EngineOptions options =
      app::engine_options({flags.router_binary, flags.worker_binary, flags.worker_addresses,
                           *worker_token, flags.worker_count, *workers_wait},
                          log_dir);
  store::RunInfo info;
  info.testbed = store::detect_testbed();

  serve::RunExecutor executor(**db, options, info, metrics);
  serve::JobQueue queue(executor);
  serve::OrchestratorService service(queue, {flags.scenarios_dir, flags.allowed_commands,
                                             flags.allowed_addresses, flags.worker_addresses});
  std::unique_ptr<serve::WebPages> pages;
  if (!flags.http_listen.empty()) {
    auto started = serve::WebPages::start(flags.http_listen, flags.db_path, queue, executor.live());
    if (!started) {
      std::fprintf(stderr, "error: %s\n", started.message().c_str());
      return kExitInvalidInput;
    }
    pages = std::move(*started);
  }
  int port = 0;
  grpc::ServerBuilder builder;
  // Without SO_REUSEPORT, a second service cannot share the port.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  builder.AddListeningPort(flags.listen, grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(&service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server || port == 0) {
    std::fprintf(stderr, "error: %s\n",
                 app::cannot_listen_message(
                     "--listen", flags.listen,
                     app::why_cannot_listen(flags.listen).value_or("gRPC could not bind it"))
                     .c_str());
    return kExitInvalidInput;
  }
  const std::string host = flags.listen.substr(0, flags.listen.rfind(':'));
  std::printf("READY grpc=%s:%d metrics=%s%s\n", host.c_str(), port, (*endpoint)->address().c_str(),
              pages ? (" http=" + pages->address()).c_str() : "");
  std::fflush(stdout);
  std::fprintf(stderr, "serve: Orchestrator service on %s:%d, metrics on %s, scenarios from %s\n",
               host.c_str(), port, (*endpoint)->url().c_str(), flags.scenarios_dir.c_str());

  auto next_round = std::chrono::steady_clock::now();
  while (!stop_requested()) {
    if (every_ns > 0 && std::chrono::steady_clock::now() >= next_round && queue.idle()) {
      std::string problems;
      for (auto& s : serve::scenarios_in(flags.scenarios_dir, problems)) {
        uint32_t position = 0;
        auto job = queue.submit(std::move(s), {}, "scheduled", position);
        if (job)
          std::fprintf(stderr, "serve: scheduled job %llu (%s)\n",
                       static_cast<unsigned long long>((*job)->id()),
                       (*job)->scenario().name.c_str());
      }
      if (!problems.empty())
        std::fprintf(stderr, "serve: skipped invalid files:\n%s", problems.c_str());
      next_round = std::chrono::steady_clock::now() + std::chrono::nanoseconds(every_ns);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }

  // SIGTERM/SIGINT: the running job sees the signal and stops its children, and its run is
  // recorded as aborted; queued jobs are cancelled; watchers see every job end.
  std::fprintf(stderr, "serve: stopping (signal %d)\n", app::interrupt_signal());
  pages.reset();
  queue.shutdown();
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(5));
  std::error_code ec;
  fs::remove(log_dir, ec);  // only when empty: failed runs' logs stay
  std::fprintf(stderr, "serve: stopped\n");
  return kExitOk;
}

}  // namespace benchgate::cli
