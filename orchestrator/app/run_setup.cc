// See run_setup.h.
#include "orchestrator/app/run_setup.h"

#include <stdlib.h>

#include <cstdio>
#include <filesystem>

#include "orchestrator/app/bundled_binary.h"
#include "orchestrator/engine/factories.h"
#include "orchestrator/store/git_revision.h"
#include "orchestrator/store/testbed.h"

namespace benchgate::app {
namespace fs = std::filesystem;

engine::EngineOptions engine_options(const ProcessSettings& processes, const std::string& log_dir) {
  engine::EngineOptions options;
  options.factories = &engine::production_factories();
  options.router_binary = bundled_binary(processes.router_binary, "router", "BENCHGATE_ROUTER_BIN");
  options.worker_binary = bundled_binary(processes.worker_binary, "worker", "BENCHGATE_WORKER_BIN");
  options.worker_addresses = processes.worker_addresses;
  options.worker_token = processes.worker_token;
  options.worker_count = processes.worker_count;
  options.workers_wait_ns = processes.workers_wait_ns;
  options.authenticate_spawned_workers = spawns_bundled_worker(processes.worker_binary);
  options.log_dir = log_dir;
  return options;
}

std::string make_log_dir(const std::string& prefix) {
  std::string pattern = (fs::temp_directory_path() / (prefix + "-XXXXXX")).string();
  if (::mkdtemp(pattern.data()) == nullptr) return fs::temp_directory_path().string();
  return pattern;
}

namespace {

// Whether a regular file lies anywhere under `dir`.
bool holds_a_file(const fs::path& dir) {
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_regular_file(ec)) return true;
  }
  return false;
}

}  // namespace

void keep_or_remove_logs(const std::string& log_dir, bool keep) {
  if (keep && holds_a_file(log_dir)) {
    std::fprintf(stderr, "child process logs: %s\n", log_dir.c_str());
    return;
  }
  std::error_code ec;
  fs::remove_all(log_dir, ec);
}

Expected<std::unique_ptr<store::Store>> open_store(const std::string& path,
                                                   const store::OpenOptions& options) {
  auto db = store::Store::open(path, options);
  if (!db) return db.error();
  for (int64_t abandoned : (*db)->abandoned_runs()) {
    std::fprintf(stderr,
                 "note: run %lld was left running by an orchestrator that is gone; "
                 "marked abandoned\n",
                 static_cast<long long>(abandoned));
  }
  return db;
}

Expected<RunSetup> set_up_run(const SetupSettings& settings) {
  auto db = open_store(settings.db_path, settings.store);
  if (!db) return db.error();
  RunSetup setup;
  setup.db = std::move(*db);
  store::RunInfo& info = setup.info;
  info.commit = settings.commit;
  info.branch = settings.branch;
  info.labels = settings.labels;
  info.testbed = store::detect_testbed();
  if (info.commit.empty() || info.branch.empty()) {
    if (auto git = store::detect_git_revision(fs::current_path().string())) {
      if (info.commit.empty()) info.commit = git->commit;
      if (info.branch.empty()) info.branch = git->branch;
    }
  }
  setup.options = engine_options(settings.processes, make_log_dir(settings.log_prefix));
  return setup;
}

}  // namespace benchgate::app
