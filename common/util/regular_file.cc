// See regular_file.h.
#include "common/util/regular_file.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "common/units/units.h"

namespace benchgate {
namespace {

// "a FIFO": what a file that is not a regular file is, for the refusal.
const char* kind_of(mode_t mode) {
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "a special file";
}

// "WHERE: reason" for a failed system call; the reason alone without a `where`.
Error system_error(const std::string& where, int error) {
  return Error{where.empty() ? std::string(std::strerror(error))
                             : where + ": " + std::strerror(error)};
}

// "WHERE is ..." for what the file is; "is ..." without a `where`.
Error refusal(const std::string& where, const std::string& predicate) {
  return Error{where.empty() ? predicate : where + " " + predicate, ErrorKind::kInvalidInput};
}

// Opens `path` as open_regular_file does, a FIFO (a pipe) let through too.
Expected<OpenedFile> open_file_or_pipe(const std::string& path, const std::string& where,
                                       bool pipes) {
  // O_NONBLOCK: opening a FIFO would otherwise wait for a writer forever (a device could block
  // too); a regular file ignores it. O_NOCTTY: a terminal named by mistake does not become the
  // process's controlling terminal. A pipe named through /dev/fd or /dev/stdin is opened anew,
  // so the flag is this reader's own, not the descriptor's the shell handed on.
  FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY));
  if (fd.get() < 0) return system_error(where, errno);
  struct stat status {};
  if (::fstat(fd.get(), &status) != 0) return system_error(where, errno);
  if (!S_ISREG(status.st_mode) && !(pipes && S_ISFIFO(status.st_mode))) {
    return refusal(where, std::string("is ") + kind_of(status.st_mode) + ", not a regular file");
  }
  return OpenedFile{std::move(fd), status};
}

Error too_large(const std::string& where, uint64_t max_bytes) {
  return refusal(where,
                 "is larger than " + std::to_string(max_bytes) + " bytes, the most it may hold");
}

// The rest of a regular file, at most max_bytes (one byte past the limit is asked for, so that
// a file that grew past it is refused, not cut).
Expected<std::string> read_regular(const OpenedFile& file, const std::string& where,
                                   uint64_t max_bytes) {
  const auto size = static_cast<uint64_t>(file.status.st_size);
  if (size > max_bytes) return too_large(where, max_bytes);
  std::string text;
  text.reserve(static_cast<size_t>(size));
  char buffer[65536];
  for (;;) {
    const uint64_t room = max_bytes + 1 - text.size();
    const size_t want = static_cast<size_t>(std::min<uint64_t>(sizeof buffer, room));
    const ssize_t got = ::read(file.fd.get(), buffer, want);
    if (got < 0) {
      if (errno == EINTR) continue;
      return system_error(where, errno);
    }
    if (got == 0) break;
    text.append(buffer, static_cast<size_t>(got));
    if (text.size() > max_bytes) return too_large(where, max_bytes);
  }
  return text;
}

// A pipe read to its end on the non-blocking descriptor. read() is called only once poll() says
// there is something to read or the writers are gone: on a FIFO that no writer has opened yet,
// read() says 0 (the end) at once, and that would be taken for an empty file.
Expected<std::string> read_pipe(const OpenedFile& file, const std::string& where,
                                uint64_t max_bytes, std::chrono::milliseconds idle_timeout,
                                const std::function<bool()>& stop_requested) {
  using Clock = std::chrono::steady_clock;
  const auto interrupted = [&where] {
    return Error{
        (where.empty() ? std::string() : where + ": ") + "interrupted while waiting for the pipe",
        ErrorKind::kInterrupted};
  };
  std::string text;
  char buffer[65536];
  Clock::time_point deadline = Clock::now() + idle_timeout;
  for (;;) {
    // Asked before every wait: a signal that landed before poll() began (its handler only sets
    // the flag) is seen within one slice instead of being lost for the whole idle timeout.
    if (stop_requested && stop_requested()) return interrupted();
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) {
      return Error{
          (where.empty() ? std::string() : where + ": ") + "no data from the pipe for " +
              format_duration_ns(std::chrono::duration<double, std::nano>(idle_timeout).count()) +
              ", and its writer has not closed it",
          ErrorKind::kInvalidInput};
    }
    pollfd wanted{file.fd.get(), POLLIN, 0};
    // Rounded up, so that a wait never ends just short of the deadline and spins; cut into
    // slices when a stop flag is to be asked between them.
    int64_t wait_ms = std::min<int64_t>(left.count() + 1, int64_t{1} << 30);
    if (stop_requested) wait_ms = std::min<int64_t>(wait_ms, kStopCheckInterval.count());
    const int ready = ::poll(&wanted, 1, static_cast<int>(wait_ms));
    if (ready < 0) {
      // A signal caught while it waits (the orchestrator's Ctrl-C handler has no SA_RESTART)
      // ends the wait: otherwise Ctrl-C would go unanswered for as long as the writer trickles.
      if (errno == EINTR) return interrupted();
      return system_error(where, errno);
    }
    if (ready == 0) continue;  // the deadline is checked above
    if ((wanted.revents & POLLNVAL) != 0) return system_error(where, EBADF);
    const uint64_t room = max_bytes + 1 - text.size();
    const size_t want = static_cast<size_t>(std::min<uint64_t>(sizeof buffer, room));
    const ssize_t got = ::read(file.fd.get(), buffer, want);
    if (got < 0) {
      if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) continue;
      return system_error(where, errno);
    }
    if (got == 0) break;  // every writer has closed it
    text.append(buffer, static_cast<size_t>(got));
    if (text.size() > max_bytes) return too_large(where, max_bytes);
    deadline = Clock::now() + idle_timeout;
  }
  return text;
}

}  // namespace

FileDescriptor::~FileDescriptor() {
  if (fd_ >= 0) ::close(fd_);
}

Expected<OpenedFile> open_regular_file(const std::string& path, const std::string& where) {
  return open_file_or_pipe(path, where, false);
}

Expected<std::string> read_regular_file(const std::string& path, const std::string& where,
                                        uint64_t max_bytes) {
  auto file = open_file_or_pipe(path, where, false);
  if (!file) return file.error();
  return read_regular(*file, where, max_bytes);
}

Expected<ReadText> read_file_or_pipe(const std::string& path, const std::string& where,
                                     uint64_t max_bytes, std::chrono::milliseconds idle_timeout,
                                     const std::function<bool()>& stop_requested) {
  auto file = open_file_or_pipe(path, where, true);
  if (!file) return file.error();
  const bool pipe = S_ISFIFO(file->status.st_mode);
  auto text = pipe ? read_pipe(*file, where, max_bytes, idle_timeout, stop_requested)
                   : read_regular(*file, where, max_bytes);
  if (!text) return text.error();
  return ReadText{std::move(*text), pipe};
}

}  // namespace benchgate
