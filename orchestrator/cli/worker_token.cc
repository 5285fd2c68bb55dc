// See worker_token.h.
#include "orchestrator/cli/worker_token.h"

#include "common/security/token.h"
#include "common/units/units.h"
#include "orchestrator/workers/discovery.h"

namespace benchgate::cli {

Expected<std::string> token_for_workers(const std::string& token_file,
                                        const std::vector<std::string>& addresses, FILE* log) {
  if (!token_file.empty() && addresses.empty()) {
    return Error{
        "--worker-token-file is for workers started elsewhere: give their addresses with "
        "--workers-at (spawned workers get a fresh token of their own)"};
  }
  if (auto entries = workers::check_worker_entries(addresses); !entries) return entries.error();
  std::string token;
  if (!token_file.empty()) {
    auto read = security::read_token_file(token_file);
    if (!read) return Error{"--worker-token-file: " + read.message()};
    token = std::move(read).value();
  }
  if (token.empty()) {
    for (const auto& address : addresses) {
      // A Unix socket is this machine's, and the worker makes its socket owner-only.
      if (address.starts_with("unix:")) continue;
      std::string_view host_port = address;
      if (host_port.starts_with("dns:")) host_port.remove_prefix(4);  // a name to resolve
      // Not HOST:PORT (no host): refused with its reason before any worker is reached.
      const std::string host = security::host_of(host_port);
      if (!host.empty() && !security::is_loopback_host(host)) {
        std::fprintf(log,
                     "warning: the worker at %s is reached over the network without a token "
                     "(start it with --token-file and pass the same file here with "
                     "--worker-token-file)\n",
                     address.c_str());
      }
    }
  }
  return token;
}

Expected<int64_t> check_workers_flags(size_t workers, const std::string& wait, bool any_remote) {
  auto ns = parse_duration_ns(wait);
  if (!ns || *ns <= 0) {
    return Error{"--workers-wait '" + wait + "': expected a positive duration such as 60s"};
  }
  if (workers > 0 && !any_remote) {
    return Error{"--workers " + std::to_string(workers) +
                 " counts remote workers: give them with --workers-at (or [workers] at in the "
                 "scenario); spawned workers are as many as each workload's 'workers'"};
  }
  return *ns;
}

}  // namespace benchgate::cli
