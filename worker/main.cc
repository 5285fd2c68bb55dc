// The bundled load generator: serves benchgate.v1.Worker until SIGTERM or SIGINT.
// stdout carries exactly one line, "READY grpc=HOST:PORT" (or "READY grpc=unix:PATH" on a Unix
// socket), once the service accepts calls; logs go to stderr.
#include <pthread.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "common/command_line/help_formatter.h"
#include "common/command_line/version.h"
#include "common/net/completion_ring.h"
#include "common/net/host_port.h"
#include "common/net/owner_only_socket.h"
#include "common/util/shown_text.h"
#include "worker/adapters/tool.h"
#include "worker/service/server.h"

namespace {

// CLI11 check for --listen: HOST:PORT with a port 0..65535 (0: any free port), or unix:PATH (a
// Unix socket, made owner-only by start_worker_server).
std::string check_listen(const std::string& value) {
  // "unix:" alone would be an abstract socket any local user may connect to.
  if (auto missing = benchgate::net::unix_address_without_path(value)) return *missing;
  if (value.starts_with("unix:")) return "";
  // The rule every address benchgate reads is split by (an IPv6 host in brackets, "[::1]:0").
  const auto split = benchgate::net::split_host_port(value, benchgate::net::kListenMinPort);
  if (!split.ok()) {
    return "'" + benchgate::shown_text(value) +
           "' is not HOST:PORT (port 0..65535) or unix:PATH: " + split.reason;
  }
  return "";
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "benchgate worker: an HTTP/1.1, HTTP/2 and WAMP load generator controlled over gRPC "
      "(service benchgate.v1.Worker)"};
  benchgate::command_line::use_readable_help(
      app, {{"--listen", "HOST:PORT|unix:PATH"}, {"--token-file", "FILE"}});
  benchgate::command_line::add_version_flag(app);
  std::string listen = "127.0.0.1:0";
  std::string log_level = "info";
  app.add_option("--listen", listen,
                 "HOST:PORT or unix:PATH of the gRPC service: port 0 picks a free port, an IPv6 "
                 "host is bracketed ([::1]:0); a Unix "
                 "socket is created owner-only (srwx------), one another server still listens "
                 "on is refused and one a stopped server left is replaced")
      ->check(check_listen)
      ->capture_default_str();
  app.add_option("--log-level", log_level, "stderr log level")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "off"}))
      ->capture_default_str();
  std::string adapter;
  app.add_option("--adapter", adapter,
                 "Run every window with this external tool instead of the built-in engine "
                 "(found on PATH, or the file --adapter-program names; "
                 "docs/WORKER_PROTOCOL.md, Adapters)")
      ->check(CLI::IsMember({"h2load", "wrk"}));
  std::string adapter_program;
  app.add_option("--adapter-program", adapter_program,
                 "With --adapter: the tool's executable to run, a file of the tool's own name, "
                 "instead of the one found on PATH (`orchestrator serve` passes the one it "
                 "resolved when it started)");
  std::string http1_io = "epoll";
  app.add_option("--http1-io", http1_io,
                 "How cleartext HTTP/1.1 connections wait for answers: 'epoll' (the load thread's "
                 "own edge-triggered epoll set, one registration per socket), 'asio' (an Asio "
                 "wait per read: one epoll_ctl more per request) or 'uring' (the load thread's "
                 "io_uring: one multishot receive per connection, sends submitted in batches; "
                 "Linux 6.0 or later with io_uring allowed, else the worker says why and exits "
                 "2); TLS connections always wait through Asio; docs/PERFORMANCE.md")
      ->check(CLI::IsMember({"asio", "epoll", "uring"}))
      ->envname("BENCHGATE_WORKER_HTTP1_IO")
      ->capture_default_str();
  std::string token_file;
  bool insecure_no_token = false;
  app.add_option("--token-file", token_file,
                 "Require every call to carry 'authorization: Bearer TOKEN', TOKEN being this "
                 "file's first line (the file must be mode 0600, owner only, or 0440 with this "
                 "process's own group as a Kubernetes Secret gives); required when "
                 "--listen is neither a loopback address nor a unix:PATH");
  app.add_flag("--insecure-no-token", insecure_no_token,
               "Listen on a network address without a token: anyone who reaches the port can "
               "make this worker send load anywhere (only on a network you trust completely)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    // A value that came from the environment names the variable it came from.
    bool flag_given = false;
    for (int i = 1; i < argc; ++i) {
      if (std::string_view(argv[i]).starts_with("--http1-io")) flag_given = true;
    }
    const bool from_env = std::getenv("BENCHGATE_WORKER_HTTP1_IO") && !flag_given &&
                          std::string_view(e.what()).find("--http1-io") != std::string_view::npos;
    std::fprintf(stderr, "worker: %s%s (see --help)\n", e.what(),
                 from_env ? " (from $BENCHGATE_WORKER_HTTP1_IO)" : "");
    return 2;
  }
  if (http1_io == "uring") {
    // Said now rather than found by every connection: the kernel (Linux 6.0 or later, io_uring
    // not disabled by kernel.io_uring_disabled or a seccomp filter) must allow it.
    boost::asio::io_context probe;
    const auto& ring = boost::asio::use_service<benchgate::net::CompletionRing>(probe);
    if (!ring.unavailable().empty()) {
      std::fprintf(stderr, "worker: --http1-io uring: %s (use 'epoll' or 'asio')\n",
                   ring.unavailable().c_str());
      return 2;
    }
  }
  std::optional<benchgate::worker::adapters::Tool> tool;
  if (!adapter_program.empty() && adapter.empty()) {
    std::fprintf(stderr, "worker: --adapter-program names the tool of an --adapter; give one\n");
    return 2;
  }
  if (!adapter.empty()) {
    const auto kind = *benchgate::worker::adapters::tool_kind(adapter);
    auto located = adapter_program.empty()
                       ? benchgate::worker::adapters::locate_tool(
                             kind, std::getenv("PATH") ? std::getenv("PATH") : "")
                       : benchgate::worker::adapters::tool_at(kind, adapter_program);
    if (!located) {
      std::fprintf(stderr, "worker: --adapter %s: %s\n", adapter.c_str(),
                   located.message().c_str());
      return 2;
    }
    tool = std::move(*located);
  }
  // Decided before anything listens: a worker open to the network without a token never starts.
  auto token = benchgate::worker::worker_token(listen, token_file, insecure_no_token);
  if (!token) {
    std::fprintf(stderr, "worker: %s\n", token.message().c_str());
    return 2;
  }

  spdlog::set_default_logger(spdlog::stderr_color_mt("worker"));
  spdlog::set_level(spdlog::level::from_str(log_level));

  // A peer that resets a TLS connection must cost that connection only: OpenSSL writes on the
  // socket's descriptor with write(2), which raises SIGPIPE after the reset, and a worker started
  // from a shell has SIGPIPE's default disposition (death). Plain sockets send with MSG_NOSIGNAL.
  std::signal(SIGPIPE, SIG_IGN);

  // Every thread started from here on inherits the blocked mask; sigwait below receives them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  if (tool)
    spdlog::info("adapter mode: every window is a run of {} ({})", tool->label(), tool->path);
  auto server = benchgate::worker::start_worker_server(
      listen, *token, std::move(tool),
      http1_io == "epoll"   ? benchgate::worker::Http1Io::kEpoll
      : http1_io == "uring" ? benchgate::worker::Http1Io::kUring
                            : benchgate::worker::Http1Io::kAsio);
  if (!server) {
    // Exit 2, as the router: the address given cannot be served (worker/README.md).
    std::fprintf(stderr, "worker: %s\n", server.message().c_str());
    return 2;
  }
  std::printf("READY grpc=%s\n", server->address.c_str());
  std::fflush(stdout);
  spdlog::info("serving benchgate.v1.Worker on {}", server->address);
  if (token->empty() && insecure_no_token) {
    spdlog::warn("--insecure-no-token: every call is accepted without authentication");
  } else if (!token->empty()) {
    spdlog::info("every call must carry the token of {}", token_file);
  }

  int signal = 0;
  sigwait(&stop_signals, &signal);
  spdlog::info("signal {}: stopping", signal);
  // Cancels running Run streams, which stops their load and closes their connections.
  server->server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));
  return 0;
}
