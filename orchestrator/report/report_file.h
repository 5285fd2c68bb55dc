// Writing one report file (--json, --junit, --markdown, --html and `report`'s page) where its
// path leads, as docs/REPORTS.md, "Report files", says: a regular file (or a path not there
// yet) is replaced atomically, through a temporary file of a name no other file has, in the
// same folder, renamed onto it; a symbolic link is followed, and what it points at is
// replaced so, the link kept, except a link in a sticky folder anyone may write (a system temporary
// folder) that is neither this user's nor the folder owner's (the kernel's fs.protected_symlinks
// rule, kept whatever that setting): it is refused; a path that is not a regular file (a pipe, a
// terminal, a device, /dev/stdout) is written into, never replaced: through descriptor 1 or 2
// when it is standard output or error, and a FIFO no process reads is an error, not a wait.
#pragma once

#include <sys/types.h>

#include <string>

#include "common/util/expected.h"

namespace benchgate::report {

// Where a report path leads.
struct ReportTarget {
  // The file to replace (the path, or what its chain of symbolic links ends at), or, for a
  // stream, the path itself, opened for writing.
  std::string path;
  // Not a regular file: a pipe, a terminal, a device, or a file reached through /proc (as
  // /dev/stdout is), written into, never replaced.
  bool stream = false;
};

// Where `path` leads; an error for a chain of links too long, a link that cannot be read or a
// link the rule above refuses to follow.
Expected<ReportTarget> report_target(const std::string& path);

// A report file on its way. `stage` writes a regular target's text into a temporary file
// beside it, readable by this user alone; `commit` gives it its final mode (the replaced file's,
// or 0666 less the umask) and renames it onto the target, or writes a stream. A temporary file not
// committed is removed when the object goes, so that no failure leaves one behind.
class StagedReport {
 public:
  static Expected<StagedReport> stage(const std::string& path, const std::string& text);

  StagedReport(StagedReport&& other) noexcept;
  StagedReport& operator=(StagedReport&& other) noexcept;
  StagedReport(const StagedReport&) = delete;
  StagedReport& operator=(const StagedReport&) = delete;
  ~StagedReport();

  // Whether the target is a stream, written only by commit() and not to be taken back then.
  bool stream() const { return target_.stream; }
  // Puts the text in place: the temporary renamed onto the target, or the stream written.
  Expected<void> commit();
  // Removes the temporary file, if any; commit() then writes nothing.
  void discard();

 private:
  StagedReport() = default;

  std::string path_;  // as given, for messages
  ReportTarget target_;
  int dir_fd_ = -1;   // the target's folder (O_PATH), where the temporary is made and renamed
  std::string name_;  // the target's name in that folder
  std::string temp_;  // the temporary file's name there while staged; "" once renamed or removed
  int temp_fd_ = -1;  // the temporary file, open (mode 0600) until commit() gives it its mode
  mode_t mode_ = 0;   // the mode the file is given before the rename
  uid_t owner_ = 0;   // the owner it is given then, when chown_
  gid_t group_ = 0;
  bool chown_ = false;
  std::string text_;  // a stream's text, written by commit()
};

// stage() then commit(): writes `text` to `path` as the comment on top says.
Expected<void> write_report_file(const std::string& path, const std::string& text);

}  // namespace benchgate::report
