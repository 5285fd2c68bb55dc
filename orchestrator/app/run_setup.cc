// See run_setup.h.
#include "orchestrator/app/run_setup.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "orchestrator/app/bundled_binary.h"
#include "orchestrator/engine/factories.h"
#include "orchestrator/serve/job.h"
#include "orchestrator/store/git_revision.h"
#include "orchestrator/store/testbed.h"

namespace benchgate::app {
namespace fs = std::filesystem;

engine::EngineOptions engine_options(const ProcessSettings& processes, const std::string& log_dir) {
  engine::EngineOptions options;
  options.factories = &engine::production_factories();
  const BinaryChoice router =
      choose_bundled_binary(processes.router_binary, "router", "BENCHGATE_ROUTER_BIN");
  const BinaryChoice worker =
      choose_bundled_binary(processes.worker_binary, "worker", "BENCHGATE_WORKER_BIN");
  options.router_binary = router.path;
  options.router_origin = router.origin;
  options.worker_binary = worker.path;
  options.worker_origin = worker.origin;
  options.worker_addresses = processes.worker_addresses;
  options.worker_token = processes.worker_token;
  options.worker_count = processes.worker_count;
  options.workers_wait_ns = processes.workers_wait_ns;
  options.authenticate_spawned_workers = spawns_bundled_worker(processes.worker_binary);
  options.log_dir = log_dir;
  return options;
}

Expected<std::string> make_log_dir(const std::string& prefix) {
  std::string pattern = (fs::temp_directory_path() / (prefix + "-XXXXXX")).string();
  if (::mkdtemp(pattern.data()) == nullptr) return fs::temp_directory_path().string();
  // Before any token is written in it: the next run's cleaner judges the folder by this lock,
  // and would take an unlocked one for a gone orchestrator's and remove the live tokens in it.
  if (!hold_folder_lock(pattern)) {
    const int error = errno;
    std::error_code ec;
    fs::remove(pattern, ec);  // still empty
    return Error{"cannot lock the log folder " + pattern + " (" + std::strerror(error) +
                 "): a later run would take it for a stopped orchestrator's and remove its worker "
                 "tokens"};
  }
  return pattern;
}

bool hold_folder_lock(const std::string& dir) {
  // Not inherited by the children this process starts (close-on-exec): the lock is this
  // process's alone. The descriptor is never closed; the folder may go before it does.
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return false;
  // Waits only while a cleaner holds it, which it does for a moment: a new folder has no tokens.
  while (::flock(fd, LOCK_EX) != 0) {
    if (errno != EINTR) {
      const int error = errno;
      ::close(fd);
      errno = error;
      return false;
    }
  }
  return true;
}

namespace {

// The lock of a log folder whose orchestrator is gone (hold_folder_lock), held while its tokens
// are removed; none while the orchestrator lives (or the folder cannot be opened).
class GoneOwnersLock {
 public:
  explicit GoneOwnersLock(const fs::path& dir)
      : fd_(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) {
    if (fd_ >= 0 && ::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      ::close(fd_);
      fd_ = -1;
    }
  }
  ~GoneOwnersLock() {
    if (fd_ >= 0) ::close(fd_);  // and the lock with it
  }
  GoneOwnersLock(const GoneOwnersLock&) = delete;
  GoneOwnersLock& operator=(const GoneOwnersLock&) = delete;

  explicit operator bool() const { return fd_ >= 0; }

 private:
  int fd_;
};

// Whether a regular file lies anywhere under `dir`.
bool holds_a_file(const fs::path& dir) {
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_regular_file(ec)) return true;
  }
  return false;
}

// The orchestrator PID in a token file's name, worker-token-PID-N (spawning_pool.cc); 0 for any
// other name.
pid_t token_owner(const std::string& name) {
  static const std::string prefix = "worker-token-";
  if (!name.starts_with(prefix)) return 0;
  const std::string rest = name.substr(prefix.size());
  const auto dash = rest.find('-');
  if (dash == std::string::npos || dash == 0 || dash + 1 == rest.size()) return 0;
  const auto digits = [](const std::string& text) {
    return std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  const std::string pid = rest.substr(0, dash);
  if (!digits(pid) || !digits(rest.substr(dash + 1)) || pid.size() > 9) return 0;
  return static_cast<pid_t>(std::stol(pid));
}

// Whether `path` is, without following a link, a folder (or a regular file) of this user.
bool owned(const fs::path& path, bool folder) {
  struct stat info {};
  if (::lstat(path.c_str(), &info) != 0 || info.st_uid != ::geteuid()) return false;
  return folder ? S_ISDIR(info.st_mode) && (info.st_mode & 077) == 0 : S_ISREG(info.st_mode);
}

// A log folder of a run or a service (make_log_dir's names): PREFIX-XXXXXX.
bool log_folder_name(const std::string& name) {
  for (const std::string prefix : {"benchgate-run-", "benchgate-serve-"}) {
    if (name.starts_with(prefix) && name.size() == prefix.size() + 6) return true;
  }
  return false;
}

}  // namespace

size_t remove_stale_worker_tokens(const std::string& temp_dir) {
  size_t removed = 0;
  std::error_code ec;
  for (fs::directory_iterator top(temp_dir, ec), end; !ec && top != end; top.increment(ec)) {
    const fs::path run_dir = top->path();
    if (!log_folder_name(run_dir.filename().string()) || !owned(run_dir, true)) continue;
    // Its orchestrator is gone only if the lock it held for its whole life can be taken; a
    // PID says nothing of a process in another PID namespace sharing this folder.
    const GoneOwnersLock lock(run_dir);
    if (!lock) continue;
    // The tokens lie in the folder, a scenario's folder of it, or an implementation's in that.
    std::vector<fs::path> tokens;
    std::error_code walk;
    for (fs::recursive_directory_iterator it(run_dir, walk), last; !walk && it != last;
         it.increment(walk)) {
      if (it.depth() > 2) continue;
      const std::string name = it->path().filename().string();
      if (token_owner(name) <= 0 || !owned(it->path(), false)) continue;
      tokens.push_back(it->path());
    }
    for (const fs::path& token : tokens) {
      std::error_code gone;
      if (!fs::remove(token, gone)) continue;
      ++removed;
      // Its folders, up to the run's, where they held nothing else (remove() of a folder
      // removes only an empty one).
      for (fs::path dir = token.parent_path(); dir.string().size() >= run_dir.string().size();
           dir = dir.parent_path()) {
        if (!fs::is_empty(dir, gone) || !fs::remove(dir, gone) || dir == run_dir) break;
      }
    }
  }
  return removed;
}

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
  // Those given, else the git work tree's of this folder, as `run --server` sends them; one
  // from git checked as the flags are, before the database is opened.
  auto revision = checked_revision(settings.commit, settings.branch, RevisionUse::kStored);
  if (!revision) return revision.error();
  auto db = open_store(settings.db_path, settings.store);
  if (!db) return db.error();
  RunSetup setup;
  setup.db = std::move(*db);
  store::RunInfo& info = setup.info;
  info.commit = std::move(revision->commit);
  info.branch = std::move(revision->branch);
  info.labels = settings.labels;
  info.testbed = store::detect_testbed();
  // A killed orchestrator could not remove its workers' token: the next run does.
  std::error_code ec;
  remove_stale_worker_tokens(fs::temp_directory_path(ec).string());
  auto log_dir = make_log_dir(settings.log_prefix);
  if (!log_dir) return log_dir.error();
  setup.options = engine_options(settings.processes, *log_dir);
  return setup;
}

Expected<store::GitRevision> checked_revision(const std::string& commit, const std::string& branch,
                                              RevisionUse use) {
  store::GitRevision revision = store::given_or_detected({commit, branch}, ".");
  // A branch with a control character would be stored and printed by `runs list`, or refused
  // by the service naming a field the user never gave: the error says it came from git.
  serve::JobOptions from_git;
  if (commit.empty()) from_git.commit = revision.commit;
  if (branch.empty()) from_git.branch = revision.branch;
  const auto names = use == RevisionUse::kSent ? serve::OptionNames::kFromGitSent
                                               : serve::OptionNames::kFromGitStored;
  if (auto valid = serve::check_job_options(from_git, names); !valid) {
    return valid.error();
  }
  return revision;
}

}  // namespace benchgate::app
