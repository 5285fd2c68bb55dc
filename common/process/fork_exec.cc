// See fork_exec.h.
#include "common/process/fork_exec.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <filesystem>

#include "common/util/errno_text.h"

namespace benchgate::fork_exec {
namespace {

// How many descriptors past the parent's highest one the fallback closes.
constexpr unsigned kDescriptorMargin = 1024;
// The fallback's bound where the parent's highest descriptor is not known, or not read because
// close_range worked when asked: a seccomp filter installed since (filters are only ever added)
// makes the child's close_range fail all the same, and it then closes up to here one by one.
constexpr unsigned kUnknownBound = 65535;

// The highest descriptor this process holds (-1 when /proc cannot be read).
int highest_open_descriptor() {
  int highest = -1;
  std::error_code ec;
  for (std::filesystem::directory_iterator it("/proc/self/fd", ec), end; !ec && it != end;
       it.increment(ec)) {
    const std::string name = it->path().filename().string();
    int fd = 0;
    const auto [ptr, parsed] = std::from_chars(name.data(), name.data() + name.size(), fd);
    if (parsed == std::errc() && ptr == name.data() + name.size()) highest = std::max(highest, fd);
  }
  return highest;
}

// Whether close_range(2) works in this process, asked once: closing descriptor ~0U, which no
// process can hold (the kernel caps the limit of open files far below it), fails only where
// the kernel lacks the call (ENOSYS) or a seccomp profile refuses it (EPERM). Where it works a
// spawn need not walk every descriptor the process holds (gRPC's sockets, the store, the
// children's pipes) in /proc/self/fd.
bool close_range_works() {
  static const bool works = ::close_range(~0U, ~0U, 0) == 0;
  return works;
}

// Child: closes first..last.
void close_from_to(unsigned first, unsigned last, unsigned fallback_bound) {
  if (::close_range(first, last, 0) == 0) return;
  for (unsigned fd = first; fd <= last && fd <= fallback_bound; ++fd) ::close(fd);
}

}  // namespace

void default_signal_dispositions() {
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  for (int number = 1; number < NSIG; ++number) {
    // SIGKILL and SIGSTOP, and the C library's own signals, refuse it (EINVAL): nothing to reset.
    ::sigaction(number, &default_action, nullptr);
  }
}

unsigned descriptor_close_bound() {
  const int highest = close_range_works() ? -1 : highest_open_descriptor();
  return highest < 0 ? kUnknownBound : static_cast<unsigned>(highest) + kDescriptorMargin;
}

void close_all_but(int* keep, size_t count, unsigned fallback_bound) {
  // Insertion sort: a handful of descriptors, and nothing that might allocate.
  for (size_t i = 1; i < count; ++i) {
    for (size_t j = i; j > 0 && keep[j - 1] > keep[j]; --j) std::swap(keep[j - 1], keep[j]);
  }
  unsigned first = 0;
  for (size_t i = 0; i < count; ++i) {
    const int fd = keep[i];
    if (fd < 0 || static_cast<unsigned>(fd) < first) continue;
    if (static_cast<unsigned>(fd) > first) close_from_to(first, fd - 1, fallback_bound);
    first = static_cast<unsigned>(fd) + 1;
  }
  close_from_to(first, ~0U, fallback_bound);
}

void send_step_failure(int fd, const char* step, int error) {
  StepFailure failure;
  failure.error = error;
  for (size_t i = 0; i + 1 < sizeof failure.step && step[i] != '\0'; ++i) {
    failure.step[i] = step[i];
  }
  // Within PIPE_BUF: written whole or not at all.
  while (::write(fd, &failure, sizeof failure) < 0 && errno == EINTR) {
  }
}

std::optional<StepFailure> receive_step_failure(int fd) {
  StepFailure failure;
  ssize_t n = 0;
  while ((n = ::read(fd, &failure, sizeof failure)) < 0 && errno == EINTR) {
  }
  if (n != static_cast<ssize_t>(sizeof failure)) return std::nullopt;
  failure.step[sizeof failure.step - 1] = '\0';
  return failure;
}

std::string describe(const StepFailure& failure) {
  return std::string(failure.step) + ": " + errno_text(failure.error);
}

}  // namespace benchgate::fork_exec
