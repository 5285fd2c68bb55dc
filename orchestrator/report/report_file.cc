// See report_file.h.
#include "orchestrator/report/report_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>
#include <utility>

namespace benchgate::report {
namespace fs = std::filesystem;

namespace {

// strerror, lower case first, as the other messages write a reason.
std::string reason(int error) {
  std::string why = std::strerror(error);
  if (!why.empty()) why[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(why[0])));
  return why;
}

// Writes all of `text` to `fd`.
bool write_all(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    done += static_cast<size_t>(n);
  }
  return true;
}

// Whether `folder` is /proc or under it: a link there (/proc/self/fd/1, which /dev/stdout and
// /dev/fd/N lead to) names an open file, not a path that can be replaced.
bool under_proc(const fs::path& folder) {
  std::error_code ec;
  const fs::path real = fs::canonical(folder, ec);
  if (ec) return false;
  const std::string text = real.string();
  return text == "/proc" || text.rfind("/proc/", 0) == 0;
}

fs::path folder_of(const fs::path& path) {
  fs::path folder = path.parent_path();
  return folder.empty() ? fs::path(".") : folder;
}

}  // namespace

Expected<ReportTarget> report_target(const std::string& path) {
  struct stat st {};
  // What the path leads to, links followed: anything there but a regular file is a stream.
  const bool exists = ::stat(path.c_str(), &st) == 0;
  if (exists && !S_ISREG(st.st_mode)) return ReportTarget{path, true};
  fs::path current = path;
  // At most as many links as the kernel follows (ELOOP).
  for (int hops = 0; hops <= 40; ++hops) {
    // A regular file reached through /proc (/dev/stdout redirected to a file) is an open
    // file's, not a name to replace; a name there that leads nowhere is a file to create.
    if (exists && under_proc(folder_of(current))) return ReportTarget{path, true};
    struct stat link {};
    if (::lstat(current.c_str(), &link) != 0 || !S_ISLNK(link.st_mode)) {
      return ReportTarget{current.string(), false};
    }
    std::error_code ec;
    const fs::path next = fs::read_symlink(current, ec);
    if (ec) return Error{"cannot read the link '" + current.string() + "': " + ec.message()};
    current = next.is_absolute() ? next : folder_of(current) / next;
  }
  return Error{"'" + path + "': " + reason(ELOOP)};
}

Expected<StagedReport> StagedReport::stage(const std::string& path, const std::string& text) {
  StagedReport staged;
  staged.path_ = path;
  auto target = report_target(path);
  if (!target) return Error{"cannot write '" + path + "': " + target.message()};
  staged.target_ = *target;
  if (staged.target_.stream) {
    staged.text_ = text;
    return staged;
  }
  const fs::path destination = staged.target_.path;
  const fs::path folder = folder_of(destination);
  const std::string where = destination.string() == path
                                ? "'" + path + "'"
                                : "'" + path + "' (a link to '" + destination.string() + "')";
  // A name no file has (O_EXCL), beside the target so that the rename stays in one file system;
  // mode 0666 less the umask, as a file the report created itself would have.
  std::random_device device;
  std::mt19937_64 random(device());
  int fd = -1;
  for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
    char suffix[17];
    std::snprintf(suffix, sizeof suffix, "%016llx", static_cast<unsigned long long>(random()));
    const fs::path temp = folder / ("." + destination.filename().string() + "." + suffix + ".tmp");
    fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0) staged.temp_ = temp.string();
    if (fd < 0 && errno != EEXIST) break;
  }
  if (fd < 0) {
    return Error{"cannot write " + where + ": cannot create a temporary file in '" +
                 folder.string() + "' (" + reason(errno) + ")"};
  }
  // A file that is replaced keeps its permissions (and, where this process may, its owner).
  struct stat existing {};
  if (::stat(destination.c_str(), &existing) == 0) {
    ::fchmod(fd, existing.st_mode & 07777);
    if (::geteuid() == 0) (void)::fchown(fd, existing.st_uid, existing.st_gid);
  }
  // fsync: a full file system may say so only there.
  const bool written = write_all(fd, text) && (::fsync(fd) == 0 || errno == EINVAL);
  const int write_error = errno;
  const bool closed = ::close(fd) == 0;
  if (!written || !closed) {
    staged.discard();
    return Error{"cannot write " + where + ": " + reason(written ? errno : write_error)};
  }
  return staged;
}

StagedReport::StagedReport(StagedReport&& other) noexcept { *this = std::move(other); }

StagedReport& StagedReport::operator=(StagedReport&& other) noexcept {
  if (this != &other) {
    discard();
    path_ = std::move(other.path_);
    target_ = std::move(other.target_);
    temp_ = std::exchange(other.temp_, std::string());
    text_ = std::move(other.text_);
  }
  return *this;
}

StagedReport::~StagedReport() { discard(); }

void StagedReport::discard() {
  if (!temp_.empty()) ::unlink(temp_.c_str());
  temp_.clear();
  text_.clear();
  target_.stream = false;
}

Expected<void> StagedReport::commit() {
  if (target_.stream) {
    // Whatever this process printed before comes first on a shared stdout or stderr.
    std::fflush(stdout);
    std::fflush(stderr);
    // O_APPEND: /dev/stdout redirected to a file (`> out`, `>> out`) is added to, as the
    // shell's own descriptor would write it, not written over from its start.
    const int fd = ::open(target_.path.c_str(), O_WRONLY | O_APPEND | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) return Error{"cannot write '" + path_ + "': " + reason(errno)};
    const bool written = write_all(fd, text_);
    const int write_error = errno;
    const bool closed = ::close(fd) == 0;
    target_.stream = false;  // written once
    text_.clear();
    if (!written || !closed) {
      return Error{"cannot write '" + path_ + "': " + reason(written ? errno : write_error)};
    }
    return {};
  }
  if (temp_.empty()) return {};
  if (::rename(temp_.c_str(), target_.path.c_str()) != 0) {
    const int error = errno;
    discard();
    return Error{"cannot write '" + path_ + "': cannot rename a temporary file onto '" +
                 target_.path + "' (" + reason(error) + ")"};
  }
  temp_.clear();
  return {};
}

Expected<void> write_report_file(const std::string& path, const std::string& text) {
  auto staged = StagedReport::stage(path, text);
  if (!staged) return Error{staged.message()};
  return staged->commit();
}

}  // namespace benchgate::report
