// The commit and branch of a git work tree, for runs whose caller did not give them
// (docs/MEASUREMENT.md, "Environment": "--commit, or the git work tree").
#pragma once

#include <optional>
#include <string>

namespace benchgate::store {

struct GitRevision {
  std::string commit;  // full SHA of HEAD, "SHA-dirty" when a tracked file differs from it
  std::string branch;  // "main"; "HEAD" when detached
};

// Runs `git -C DIR rev-parse HEAD`, `git -C DIR rev-parse --abbrev-ref HEAD` and `git -C DIR
// status --porcelain --untracked-files=no` with fixed argument vectors (no shell). Nothing when git
// is missing or DIR is not in a work tree.
std::optional<GitRevision> detect_git_revision(const std::string& dir);

// The commit and branch a run is stored with: those `given` (--commit, --branch), and each
// that is empty from the git work tree of `dir` (left empty outside one). A local run and
// `run --server` both take them from here, so the service stores what a local run would.
GitRevision given_or_detected(GitRevision given, const std::string& dir);

}  // namespace benchgate::store
