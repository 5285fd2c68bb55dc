// Opening and reading a file a user named, refusing anything that is not a regular file before
// it is read: a FIFO would block open() until a writer comes, and a device such as /dev/zero
// never ends. The checks are made on the opened descriptor, so the file checked is the file
// read (no window between a stat and the open). The token file (common/security/token.h) and
// the files a scenario names (orchestrator/scenario/named_file.h) read through here; a scenario
// file may be a pipe too (read_file_or_pipe: `validate <(generate)`, `run /dev/stdin`).
#pragma once

#include <sys/stat.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

#include "common/util/expected.h"

namespace benchgate {

// An open file descriptor, closed when it goes.
class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  FileDescriptor(FileDescriptor&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  FileDescriptor& operator=(FileDescriptor&&) = delete;
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  ~FileDescriptor();

  int get() const { return fd_; }

 private:
  int fd_;
};

// A regular file open for reading, with what fstat said of it (owner, mode, size).
struct OpenedFile {
  FileDescriptor fd;
  struct stat status {};
};

// Opens `path` for reading (symbolic links followed). Refused: a file that cannot be opened
// ("WHERE: <reason>"), and one that is not a regular file ("WHERE is a FIFO (named pipe), not
// a regular file", kind kInvalidInput). `where` names the file for the messages, e.g.
// "token file 'x'"; empty, the messages start with the reason ("is a FIFO ...").
Expected<OpenedFile> open_regular_file(const std::string& path, const std::string& where);

// The whole text of the regular file `path`, refused as open_regular_file refuses, and when it
// holds more than `max_bytes` ("WHERE is larger than N bytes, the most it may hold", kind
// kInvalidInput; checked on the bytes read too, as a file may grow while it is read).
Expected<std::string> read_regular_file(const std::string& path, const std::string& where,
                                        uint64_t max_bytes);

// What read_file_or_pipe read, and whether it came from a pipe.
struct ReadText {
  std::string text;
  bool from_pipe = false;
};

// The whole text of `path`: a regular file as read_regular_file reads it, or a pipe or FIFO
// (`<(generate)` names /dev/fd/63, `/dev/stdin` the shell's pipe, a named pipe) read until its
// writers close it. A pipe is never waited on for ever: the descriptor is non-blocking and
// polled, and when no byte comes for `idle_timeout` (no writer ever opened a named pipe, or one
// stalled without closing it) the read ends with "WHERE: no data from the pipe for 10s, and its
// writer has not closed it" (kind kInvalidInput); a signal caught while it waits (Ctrl-C) ends
// it too ("WHERE: interrupted while waiting for the pipe", kind kInterrupted), and so does
// `stop_requested` saying true: it is asked before the wait and every kStopCheckInterval of it,
// so that a signal whose handler only sets a flag, landing just before poll() began, is not
// lost for the whole idle timeout. More than `max_bytes` from a pipe is refused as a file that
// large is. Anything else (a device, a folder, a socket) is refused before it is read, as
// open_regular_file refuses it. A pipe is read once: its text is what the caller keeps.
Expected<ReadText> read_file_or_pipe(const std::string& path, const std::string& where,
                                     uint64_t max_bytes, std::chrono::milliseconds idle_timeout,
                                     const std::function<bool()>& stop_requested = {});

// How often a pipe's wait asks read_file_or_pipe's `stop_requested`.
inline constexpr std::chrono::milliseconds kStopCheckInterval{50};

}  // namespace benchgate
