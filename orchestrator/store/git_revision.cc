// Git revision detection (git_revision.h) with posix_spawnp: arguments go to git as a vector,
// so a folder name is never interpreted by a shell.
#include "orchestrator/store/git_revision.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <utility>
#include <vector>

extern char** environ;

namespace benchgate::store {
namespace {

// Runs argv with stdout captured (stdin and stderr from/to /dev/null); the first line of its
// output when it exits 0.
std::optional<std::string> first_line_of(std::vector<std::string> args) {
  int out[2];
  if (pipe2(out, O_CLOEXEC) != 0) return std::nullopt;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(out[1]);
  if (rc != 0) {
    close(out[0]);
    return std::nullopt;
  }
  std::string text;
  char buf[512];
  while (true) {
    const ssize_t n = read(out[0], buf, sizeof(buf));
    if (n > 0) {
      text.append(buf, static_cast<size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  close(out[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return std::nullopt;
  const size_t end = text.find_first_of("\r\n");
  text = text.substr(0, end);
  if (text.empty()) return std::nullopt;
  return text;
}

}  // namespace

std::optional<GitRevision> detect_git_revision(const std::string& dir) {
  auto commit = first_line_of({"git", "-C", dir, "rev-parse", "HEAD"});
  if (!commit) return std::nullopt;
  auto branch = first_line_of({"git", "-C", dir, "rev-parse", "--abbrev-ref", "HEAD"});
  // What is measured is not the commit when a tracked file differs from it (staged or not);
  // untracked files do not count, as for `git describe --dirty`. --no-optional-locks: reading
  // never rewrites the index of a tree someone works in.
  auto changed = first_line_of(
      {"git", "--no-optional-locks", "-C", dir, "status", "--porcelain", "--untracked-files=no"});
  return GitRevision{*commit + (changed ? "-dirty" : ""), branch.value_or("")};
}

GitRevision given_or_detected(GitRevision given, const std::string& dir) {
  if (!given.commit.empty() && !given.branch.empty()) return given;
  if (auto git = detect_git_revision(dir)) {
    if (given.commit.empty()) given.commit = std::move(git->commit);
    if (given.branch.empty()) given.branch = std::move(git->branch);
  }
  return given;
}

}  // namespace benchgate::store
