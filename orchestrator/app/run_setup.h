// What every run starts from, for `orchestrator run`, `calibrate` and `serve`: the opened store,
// the run's commit, branch, labels and testbed, and how the engine starts the router and the
// workers. Everything here can fail before anything is spawned, so a mistake costs nothing.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/util/expected.h"
#include "orchestrator/engine/scenario_runner.h"
#include "orchestrator/store/git_revision.h"
#include "orchestrator/store/store.h"

namespace benchgate::app {

// How the router and the workers are started or reached (the commands' flags of that name).
struct ProcessSettings {
  std::string router_binary;  // --router-bin; empty: the bundled one (bundled_binary.h)
  std::string worker_binary;  // --worker-bin; empty: the bundled one
  std::vector<std::string> worker_addresses;  // --workers-at: connect instead of spawning
  std::string worker_token;                   // sent to the worker_addresses workers
  size_t worker_count = 0;  // --workers: remote workers to wait for (0: the scenario's)
  int64_t workers_wait_ns = 60'000'000'000;  // --workers-wait
};

// The engine's options for `processes`, the children's logs going to `log_dir`.
engine::EngineOptions engine_options(const ProcessSettings& processes, const std::string& log_dir);

// A private folder for the children's stderr logs, `prefix`-XXXXXX in the temporary folder
// (the temporary folder itself when none can be made), locked by this process for its whole
// life (hold_folder_lock): while it lives, remove_stale_worker_tokens leaves the folder alone.
// An error, the folder removed, when the lock cannot be taken (no descriptor left, EMFILE): an
// unlocked folder's tokens would be removed by the next run while this one still uses them.
Expected<std::string> make_log_dir(const std::string& prefix);

// Takes an exclusive flock(2) on the folder `dir` and keeps it until this process exits: the
// kernel lets it go when the process dies, however it dies and in whatever PID namespace it
// runs, so a lock that can be taken means nobody uses the folder any more. False when the
// folder cannot be opened or locked (errno says why).
bool hold_folder_lock(const std::string& dir);

// The worker tokens (README "Security") that an orchestrator killed before it could remove them
// left in `temp_dir`: in its log folders (benchgate-run-XXXXXX, benchgate-serve-XXXXXX: ours,
// mode 0700) whose lock (hold_folder_lock) this call can take, the orchestrator that made them
// being gone, each file worker-token-PID-N is removed, and so is a folder that held nothing
// else. A folder still locked is left alone whatever the PID in its tokens' names says (an
// orchestrator in another PID namespace sharing the folder looks gone to kill(2)). Only folders
// and files owned by this user, never through a symbolic link; the logs beside a token stay.
// Returns how many tokens were removed.
size_t remove_stale_worker_tokens(const std::string& temp_dir);

// After a run: a log folder that holds a log is named on stderr ("child process logs: DIR")
// when `keep`, else removed. A folder without a log (nothing was spawned: an external system,
// --workers-at) is no lead to follow and is removed even when `keep`.
void keep_or_remove_logs(const std::string& log_dir, bool keep);

// Opens (or creates) the store at `path`; the error names the path. Runs left running by an
// orchestrator that is gone are marked abandoned and noted on stderr.
Expected<std::unique_ptr<store::Store>> open_store(const std::string& path,
                                                   const store::OpenOptions& options = {});

struct SetupSettings {
  std::string db_path;
  std::string commit;  // empty: the git work tree's
  std::string branch;  // empty: the git work tree's
  std::map<std::string, std::string> labels;
  ProcessSettings processes;
  std::string log_prefix = "benchgate-run";
  store::OpenOptions store = {};  // --db-busy-timeout
};

struct RunSetup {
  std::unique_ptr<store::Store> db;
  store::RunInfo info;  // commit, branch, labels, testbed; each scenario adds its own
  engine::EngineOptions options;
};

// Reads the commit and branch (checked_revision: one from git that is refused fails the setup
// before the store is opened), opens the store, detects the testbed, makes the log folder.
// `run` and `calibrate` set up through here.
Expected<RunSetup> set_up_run(const SetupSettings& settings);

// What becomes of the commit and branch checked_revision gives: a local `run` or `calibrate`
// stores them, `run --server` sends them to the service.
enum class RevisionUse { kStored, kSent };

// The commit and branch a local `run` stores and `run --server` sends: `commit` and `branch`
// as given (the flags, checked already), else the git work tree's of this folder
// (store::given_or_detected). A value git gave is checked as the flags are
// (serve::check_job_options: no control character, valid UTF-8; git takes a branch name with
// invalid UTF-8); the error says it came from git and which flag gives another one to store
// or to send (`use`).
Expected<store::GitRevision> checked_revision(const std::string& commit, const std::string& branch,
                                              RevisionUse use);

}  // namespace benchgate::app
