#include "orchestrator/sut/builtin_router.h"

#include <sstream>

#include "common/units/units.h"
#include "common/util/shown_list.h"
#include "orchestrator/tls/run_certificate.h"

namespace benchgate::sut {

std::map<std::string, std::string> parse_ready_line(const std::string& line) {
  std::map<std::string, std::string> fields;
  std::istringstream words(line);
  std::string word;
  while (words >> word) {
    auto eq = word.find('=');
    if (eq != std::string::npos) fields[word.substr(0, eq)] = word.substr(eq + 1);
  }
  return fields;
}

namespace {
constexpr size_t kLongestAddress = 512;
}  // namespace

std::string check_ready_line(const std::string& who, const std::string& line,
                             const std::vector<std::string>& required, scenario::DialForms forms) {
  const auto fields = parse_ready_line(line);
  // Escaped and cut as worker-check quotes a worker's text: a READY line may hold 64 KiB.
  const std::string unexpected =
      who + " printed an unexpected READY line '" + shown_cut(line, ShownList::kItemBytes) + "': ";
  std::string expected = "READY";
  std::string missing;
  for (const auto& key : required) {
    expected += " " + key + "=HOST:PORT";
    if (!fields.count(key)) missing += (missing.empty() ? "" : ", ") + key + "=";
  }
  if (!missing.empty()) return unexpected + "expected '" + expected + "' (no " + missing + ")";
  // A field present but not an address (garbage after the port, no port) would be dialled and
  // fail as a connection that never came, or reach another port than the one listened on.
  for (const auto& key : required) {
    const std::string& value = fields.at(key);
    // Longer than any address (a host name of 253 bytes and its port, a socket path of 108):
    // quoted whole, twice, it would make one error line of the READY line's 64 KiB.
    if (value.size() > kLongestAddress) {
      return unexpected + key + "= '" + shown_cut(value, ShownList::kItemBytes) +
             "' is not an address to connect to: " + std::to_string(value.size()) +
             " bytes, longer than any address";
    }
    if (auto ok = scenario::check_dial_address(key + "=", value, forms); !ok) {
      return unexpected + ok.message();
    }
  }
  return "";
}

BuiltinRouter::BuiltinRouter(const scenario::RouterConfig& config, const SutContext& context)
    : config_(config), context_(context) {}

BuiltinRouter::~BuiltinRouter() { stop(); }

Expected<void> BuiltinRouter::start(std::chrono::steady_clock::time_point deadline) {
  const auto began = std::chrono::steady_clock::now();
  processes::SpawnOptions options;
  options.name = "router";
  options.executable = context_.router_binary;
  options.args = {"--http",      "127.0.0.1:0", "--control",
                  "127.0.0.1:0", "--threads",   std::to_string(config_.threads)};
  if (!config_.auth_config.empty()) {
    options.args.push_back("--auth-config");
    options.args.push_back(config_.auth_config);
  }
  if (config_.ws_fragment_bytes > 0) {
    options.args.push_back("--ws-fragment-bytes");
    options.args.push_back(std::to_string(config_.ws_fragment_bytes));
  }
  options.stderr_log = context_.log_dir + "/router.stderr.log";
  if (config_.tls) {
    std::string cert = config_.tls_cert;
    std::string key = config_.tls_key;
    if (cert.empty()) {
      auto made = tls::make_run_certificate(context_.log_dir);
      if (!made) return made.error();
      cert = made->cert_file;
      key = made->key_file;
      ca_pem_ = made->ca_pem;
    }
    options.args.insert(options.args.end(), {"--tls-cert", cert, "--tls-key", key});
  }
  auto spawned = processes::ChildProcess::spawn(options);
  if (!spawned) return spawned.error();
  process_ = std::move(spawned).value();
  auto line = process_->wait_ready_line(deadline);
  if (!line) {
    // Out of time while it runs: say how long it had, and the key that sets it.
    if (line.error().kind == ErrorKind::kFailed && process_->running() &&
        std::chrono::steady_clock::now() >= deadline) {
      const auto had = startup_time_given(config_, context_, began, deadline);
      return Error{"router did not print READY within " +
                       format_duration_ns(static_cast<double>(had.count())) + " (startup_timeout)",
                   ErrorKind::kFailed, process_->stderr_tail()};
    }
    return line.error();
  }
  if (auto wrong = check_ready_line("router", *line, {"http", "control"}); !wrong.empty()) {
    return Error{wrong};
  }
  auto fields = parse_ready_line(*line);
  http_address_ = fields["http"];
  ready_fields_ = fields;
  control_ = std::make_unique<RouterControlClient>(fields["control"]);
  return control_->wait_healthy(deadline);
}

Expected<std::string> BuiltinRouter::wamp_address(const std::string& transport) const {
  const std::string field = transport == "rawsocket" ? "rawsocket" : "ws";
  auto it = ready_fields_.find(field);
  if (it == ready_fields_.end()) {
    return Error{"the bundled router announced no " + field + "= address in its READY line (" +
                 transport + " WAMP is not served by this router build)"};
  }
  return it->second;
}

std::optional<Error> BuiltinRouter::failure() {
  if (process_ && process_->stopped()) {
    return Error{"router (pid " + std::to_string(process_->pid()) +
                 ") is stopped (SIGSTOP or a debugger) and serves nothing"};
  }
  return exited();
}

std::optional<Error> BuiltinRouter::exited() {
  if (!process_) return Error{"router was not started"};
  if (process_->running()) return std::nullopt;
  return Error{
      "router (pid " + std::to_string(process_->pid()) + ") " + process_->exit_description(),
      ErrorKind::kFailed, process_->stderr_tail()};
}

std::string BuiltinRouter::stopped_since_last_call() {
  if (!process_ || !process_->stopped_since_last_call()) return {};
  return "router (pid " + std::to_string(process_->pid()) + ")";
}

Expected<void> BuiltinRouter::begin_window() {
  if (!control_) return Error{"router is not running"};
  return control_->reset();
}

Expected<std::optional<MetricsSnapshot>> BuiltinRouter::snapshot() {
  if (!control_) return Error{"router is not running"};
  auto reading = control_->metrics();
  if (!reading) return reading.error();
  return std::optional<MetricsSnapshot>(std::move(reading).value());
}

void BuiltinRouter::stop() {
  if (!process_) return;
  // A frozen router cannot answer Shutdown; ChildProcess::stop continues and ends it.
  if (control_ && process_->running() && !process_->stopped()) (void)control_->shutdown();
  // Close the control channel before waiting: the router's gRPC server shuts down with a
  // grace period that an open client connection makes it wait out in full.
  control_.reset();
  process_->stop();
  process_.reset();
}

std::string BuiltinRouter::description() const {
  return "builtin router (" + std::to_string(config_.threads) + " thread" +
         (config_.threads == 1 ? "" : "s") + ")";
}

}  // namespace benchgate::sut
