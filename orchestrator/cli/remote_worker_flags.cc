// See remote_worker_flags.h.
#include "orchestrator/cli/remote_worker_flags.h"

#include <CLI/CLI.hpp>

#include "common/workload/workload_limits.h"
#include "orchestrator/cli/worker_token.h"

namespace benchgate::cli {

void add_remote_worker_options(CLI::App& command, RemoteWorkerFlags& flags) {
  // One value a flag (repeat it, or comma-separate): a word after it is the command's argument,
  // not another address (`run --workers-at ADDR s.toml` took s.toml for an address).
  command.add_option("--workers-at", flags.addresses, kWorkersAtHelp)
      ->delimiter(',')
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->allow_extra_args(false);
  command.add_option("--workers", flags.count, kWorkersHelp)
      ->check(CLI::Range(uint32_t{1}, workload_limits::kMaxWorkers));
  command.add_option("--workers-wait", flags.wait, kWorkersWaitHelp)->capture_default_str();
  command.add_option("--worker-token-file", flags.token_file, kWorkerTokenFileHelp);
}

Expected<CheckedRemoteWorkers> check_remote_worker_flags(
    const RemoteWorkerFlags& flags, const std::vector<scenario::Scenario>& scenarios, FILE* log) {
  std::vector<std::string> remote = flags.addresses;
  if (remote.empty()) {
    for (const auto& scenario : scenarios) {
      remote.insert(remote.end(), scenario.workers.at.begin(), scenario.workers.at.end());
    }
  }
  auto wait_ns = check_workers_flags(flags.count, flags.wait, !remote.empty());
  if (!wait_ns) return wait_ns.error();
  auto token = token_for_workers(flags.token_file, remote, log);
  if (!token) return token.error();
  return CheckedRemoteWorkers{std::move(*token), *wait_ns};
}

}  // namespace benchgate::cli
