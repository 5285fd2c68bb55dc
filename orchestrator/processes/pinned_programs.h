// Programs started from the very file that was checked, not from whatever their path names by
// the time they start. `orchestrator serve` checks a submitted scenario's programs against
// --allow-command as its job starts (serve/admission.h), and the run starts its routers and
// workers later, some of them an hour later: a path checked then and executed later could name
// another file in between. While a PinnedPrograms is in place, ChildProcess::spawn starts each
// of its paths from the descriptor opened as it was pinned (execveat(AT_EMPTY_PATH)).
//
// A `#!` script cannot be started so and keep its name: its interpreter opens the script by the
// name the kernel gives it, /dev/fd/N for a descriptor, so its $0 would name no folder of its
// own. A pinned script is started by its path, once its path is seen to name the pinned file
// still, as its spawn begins: the window left runs from that check to the exec (the child's
// environment is built, another spawn may be waited for, then the fork).
#pragma once

#include <sys/types.h>

#include <map>
#include <memory>
#include <optional>
#include <string>

namespace benchgate::processes {

// Closes a pinned descriptor when the last PinnedFile that holds it goes.
class OpenDescriptor {
 public:
  explicit OpenDescriptor(int fd) : fd_(fd) {}
  ~OpenDescriptor();
  OpenDescriptor(const OpenDescriptor&) = delete;
  OpenDescriptor& operator=(const OpenDescriptor&) = delete;

 private:
  int fd_;
};

// What spawn starts for a pinned path. A copy holds the descriptor open as the set does: spawn
// takes one (pinned_file) and uses its number up to the exec, while the job's teardown may
// destroy the set; had the set closed it, the next open anywhere would take the number, and
// the child start that file.
struct PinnedFile {
  int fd = -1;  // O_PATH, close-on-exec; -1 when the path could not be opened
  std::shared_ptr<const OpenDescriptor> open;  // closes fd with the last copy
  std::string problem;                         // why not, when fd is -1
  bool script = false;                         // starts with "#!": started by its path (above)
  dev_t device = 0;
  ino_t inode = 0;
};

class PinnedPrograms {
 public:
  PinnedPrograms() = default;
  ~PinnedPrograms();  // out of place first; its descriptors close with their last copy
  PinnedPrograms(const PinnedPrograms&) = delete;
  PinnedPrograms& operator=(const PinnedPrograms&) = delete;

  // Opens `path` as exec finds it (a final symlink followed: a multi-call binary's name is a
  // link); one that cannot be opened is kept so, and spawn refuses to start it.
  void pin(const std::string& path);
  // Whether `path` was pinned and names another file now than the one opened. Asked once the
  // paths were checked: the descriptors, opened before, are then of files that passed the
  // check. A path that could not be opened names none (spawn refuses it).
  bool names_another_file(const std::string& path) const;
  // Puts these in place for ChildProcess::spawn until destroyed: one set at a time (serve runs
  // one job at a time); a second is refused (false).
  bool install();

 private:
  std::map<std::string, PinnedFile> files_;
  bool installed_ = false;
};

// spawn's side: the pinned file of `path` (exactly as pinned), if a PinnedPrograms in place
// holds it.
std::optional<PinnedFile> pinned_file(const std::string& path);
// Whether `path` names the file `pinned` was opened on, now.
bool names_pinned_file(const std::string& path, const PinnedFile& pinned);

}  // namespace benchgate::processes
