// See report_file.h.
#include "orchestrator/report/report_file.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <random>
#include <utility>
#include <vector>

#include "common/util/errno_text.h"

namespace benchgate::report {
namespace fs = std::filesystem;

namespace {

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

// The kernel's rule for following a link (fs.protected_symlinks), applied whether or not the
// kernel applies it: a link in a sticky folder that everyone may write (a system temporary folder)
// is followed only when it is this process's (its effective user's) or the folder owner's. Anyone
// may put a link there; following someone else's would let them choose the file this process
// replaces.
Expected<void> may_follow(const fs::path& link, const struct stat& link_st) {
  struct stat folder {};
  if (::stat(folder_of(link).c_str(), &folder) != 0) return {};
  const bool shared = (folder.st_mode & S_ISVTX) != 0 && (folder.st_mode & S_IWOTH) != 0;
  if (!shared || link_st.st_uid == ::geteuid() || link_st.st_uid == folder.st_uid) return {};
  return Error{"the link '" + link.string() + "' is in a sticky folder anyone may write ('" +
               folder_of(link).string() + "') and belongs neither to this user nor to the " +
               "folder's owner; it is not followed (write to where it leads instead)"};
}

// The kernel's rule for opening a FIFO or device (fs.protected_fifos), which an open without
// O_CREAT escapes, applied here: one in a sticky folder that everyone may write is written into
// only when it is this process's (its effective user's) or the folder owner's. Anyone may put
// one there, and a report written into it is theirs to read.
Expected<void> may_write_into(const fs::path& file, const struct stat& file_st) {
  if (!S_ISFIFO(file_st.st_mode) && !S_ISCHR(file_st.st_mode) && !S_ISBLK(file_st.st_mode)) {
    return {};
  }
  struct stat folder {};
  if (::stat(folder_of(file).c_str(), &folder) != 0) return {};
  const bool shared = (folder.st_mode & S_ISVTX) != 0 && (folder.st_mode & S_IWOTH) != 0;
  if (!shared || file_st.st_uid == ::geteuid() || file_st.st_uid == folder.st_uid) return {};
  return Error{std::string(S_ISFIFO(file_st.st_mode) ? "the FIFO '" : "the device '") +
               file.string() + "' is in a sticky folder anyone may write ('" +
               folder_of(file).string() + "') and belongs neither to this user nor to the " +
               "folder's owner; it is not written into"};
}

// Where `path` leads, every link on the way (in the folders as in the last name) checked by
// may_follow; `followed` says whether one was, `through_proc` whether one was in /proc. At
// most 40 links, as the kernel (ELOOP).
Expected<fs::path> resolve(const std::string& path, bool& followed, bool& through_proc) {
  followed = false;
  through_proc = false;
  std::vector<std::string> todo;  // the names still to walk, the next last
  auto push = [&todo](const fs::path& p) {
    std::vector<std::string> names;
    for (const fs::path& name : p.relative_path()) {
      if (!name.empty() && name != ".") names.push_back(name.string());
    }
    todo.insert(todo.end(), names.rbegin(), names.rend());
  };
  fs::path done = fs::path(path).is_absolute() ? fs::path("/") : fs::path(".");
  push(path);
  int hops = 0;
  while (!todo.empty()) {
    fs::path next = done / todo.back();
    todo.pop_back();
    struct stat st {};
    if (::lstat(next.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) {
      done = std::move(next);
      continue;
    }
    if (++hops > 40) return Error{"'" + path + "': " + errno_text(ELOOP)};
    if (auto allowed = may_follow(next, st); !allowed) return Error{allowed.message()};
    if (!through_proc && under_proc(done)) through_proc = true;
    std::error_code ec;
    const fs::path target = fs::read_symlink(next, ec);
    if (ec) return Error{"cannot read the link '" + next.string() + "': " + ec.message()};
    if (target.is_absolute()) done = "/";
    push(target);
    followed = true;
  }
  return done.lexically_normal();
}

// Opens the folder `folder` for *at() calls, refusing any link on the way (resolve() found
// none there): what was checked is what is written into, though a name be swapped for a link
// since. Kernels before openat2 (5.6) open it as open() does.
int open_folder(const fs::path& folder) {
  open_how how{};
  how.flags = O_PATH | O_DIRECTORY | O_CLOEXEC;
  how.resolve = RESOLVE_NO_SYMLINKS;
  const long fd = ::syscall(SYS_openat2, AT_FDCWD, folder.c_str(), &how, sizeof how);
  if (fd >= 0 || errno != ENOSYS) return static_cast<int>(fd);
  return ::open(folder.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
}

// The process's umask, read where Linux shows it (4.7 on), else set and put back.
mode_t current_umask() {
  if (std::FILE* status = std::fopen("/proc/self/status", "re")) {
    char line[256];
    unsigned int mask = 0;
    bool found = false;
    while (!found && std::fgets(line, sizeof line, status) != nullptr) {
      found = std::sscanf(line, "Umask: %o", &mask) == 1;
    }
    std::fclose(status);
    if (found) return static_cast<mode_t>(mask & 0777);
  }
  const mode_t mask = ::umask(077);
  ::umask(mask);
  return mask;
}

}  // namespace

Expected<ReportTarget> report_target(const std::string& path) {
  bool followed = false;
  bool through_proc = false;
  auto resolved = resolve(path, followed, through_proc);
  if (!resolved) return Error{resolved.message()};
  struct stat st {};
  // What the path leads to: anything there but a regular file is a stream.
  const bool exists = ::stat(path.c_str(), &st) == 0;
  if (exists && !S_ISREG(st.st_mode)) {
    // One reached through /proc (/dev/stdout) is a file this process has open already.
    if (!through_proc) {
      if (auto allowed = may_write_into(*resolved, st); !allowed) return Error{allowed.message()};
    }
    return ReportTarget{path, true};
  }
  // A regular file reached through /proc (/dev/stdout redirected to a file) is an open file's,
  // not a name to replace; a name there that leads nowhere is a file to create.
  if (exists && (through_proc || under_proc(folder_of(*resolved)))) {
    return ReportTarget{path, true};
  }
  return ReportTarget{followed ? resolved->string() : path, false};
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
  // The folder held by a descriptor: the temporary file is made in it and renamed in it, no
  // path looked up again after the checks.
  staged.dir_fd_ = open_folder(folder);
  if (staged.dir_fd_ < 0) {
    return Error{"cannot write " + where + ": cannot open the folder '" + folder.string() + "' (" +
                 errno_text(errno) + ")"};
  }
  staged.name_ = destination.filename().string();
  // The kernel's own say: the path opened as open() would, links followed under its rules,
  // must lead to the file in that folder (or, both, to nothing yet).
  struct stat existing {};
  const bool there =
      ::fstatat(staged.dir_fd_, staged.name_.c_str(), &existing, AT_SYMLINK_NOFOLLOW) == 0;
  const int kernel_fd = ::open(path.c_str(), O_PATH | O_CLOEXEC);
  const int open_error = errno;
  struct stat opened {};
  const bool same = kernel_fd >= 0
                        ? there && ::fstat(kernel_fd, &opened) == 0 &&
                              opened.st_dev == existing.st_dev && opened.st_ino == existing.st_ino
                        : open_error == ENOENT && !there;
  if (kernel_fd >= 0) ::close(kernel_fd);
  if (!same) {
    return Error{"cannot write " + where + ": " +
                 (kernel_fd < 0 && open_error != ENOENT ? errno_text(open_error)
                                                        : "it changed while it was checked")};
  }
  if (there && !S_ISREG(existing.st_mode)) {
    return Error{"cannot write " + where + ": it changed while it was checked"};
  }
  // A name no file has (O_EXCL), beside the target so that the rename stays in one file system;
  // readable by this user alone while it holds the text (its final mode is given only just
  // before the rename, by commit()), so that no one opens it now and reads on after that.
  std::random_device device;
  std::mt19937_64 random(device());
  int fd = -1;
  for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
    char suffix[17];
    std::snprintf(suffix, sizeof suffix, "%016llx", static_cast<unsigned long long>(random()));
    const std::string temp = "." + staged.name_ + "." + suffix + ".tmp";
    fd = ::openat(staged.dir_fd_, temp.c_str(),
                  O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd >= 0) staged.temp_ = temp;
    if (fd < 0 && errno != EEXIST) break;
  }
  if (fd < 0) {
    return Error{"cannot write " + where + ": cannot create a temporary file in '" +
                 folder.string() + "' (" + errno_text(errno) + ")"};
  }
  staged.temp_fd_ = fd;
  // A file that is replaced keeps its permissions (and, where this process may, its owner,
  // except in a sticky folder anyone may write an owner who is neither this user nor the
  // folder's: anyone may put a file there, and root would make a file of its own theirs); a new
  // one has 0666 less the umask, as a file the report created itself would have.
  if (there) {
    staged.mode_ = existing.st_mode & 07777;
    struct stat folder_st {};
    const bool shared = ::fstat(staged.dir_fd_, &folder_st) != 0 ||
                        ((folder_st.st_mode & S_ISVTX) != 0 && (folder_st.st_mode & S_IWOTH) != 0);
    const bool owner_kept =
        !shared || existing.st_uid == ::geteuid() || existing.st_uid == folder_st.st_uid;
    if (::geteuid() == 0 && owner_kept) {
      staged.owner_ = existing.st_uid;
      staged.group_ = existing.st_gid;
      staged.chown_ = true;
    }
  } else {
    staged.mode_ = 0666 & ~current_umask();
  }
  // fsync: a full file system may say so only there.
  if (!write_all(fd, text) || (::fsync(fd) != 0 && errno != EINVAL)) {
    const int write_error = errno;
    staged.discard();
    return Error{"cannot write " + where + ": " + errno_text(write_error)};
  }
  return staged;
}

StagedReport::StagedReport(StagedReport&& other) noexcept { *this = std::move(other); }

StagedReport& StagedReport::operator=(StagedReport&& other) noexcept {
  if (this != &other) {
    discard();
    path_ = std::move(other.path_);
    target_ = std::move(other.target_);
    dir_fd_ = std::exchange(other.dir_fd_, -1);
    name_ = std::move(other.name_);
    temp_ = std::exchange(other.temp_, std::string());
    temp_fd_ = std::exchange(other.temp_fd_, -1);
    mode_ = other.mode_;
    owner_ = other.owner_;
    group_ = other.group_;
    chown_ = other.chown_;
    text_ = std::move(other.text_);
  }
  return *this;
}

StagedReport::~StagedReport() { discard(); }

void StagedReport::discard() {
  if (temp_fd_ >= 0) ::close(temp_fd_);
  temp_fd_ = -1;
  if (!temp_.empty() && dir_fd_ >= 0) ::unlinkat(dir_fd_, temp_.c_str(), 0);
  temp_.clear();
  if (dir_fd_ >= 0) ::close(dir_fd_);
  dir_fd_ = -1;
  text_.clear();
  target_.stream = false;
}

namespace {

// The descriptor a path names: 1 for /dev/stdout, 2 for /dev/stderr, N for /dev/fd/N and
// /proc/self/fd/N; -1 for any other path.
int named_descriptor(const std::string& path) {
  if (path == "/dev/stdout") return 1;
  if (path == "/dev/stderr") return 2;
  for (const std::string prefix : {"/dev/fd/", "/proc/self/fd/"}) {
    if (path.rfind(prefix, 0) != 0 || path.size() == prefix.size()) continue;
    const std::string digits = path.substr(prefix.size());
    if (digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos) {
      return -1;
    }
    return std::stoi(digits);
  }
  return -1;
}

// Writes `text` into the stream `path` (`shown`, for messages).
Expected<void> write_stream(const std::string& shown, const std::string& path,
                            const std::string& text) {
  // Whatever this process printed before comes first on a shared stdout or stderr.
  std::fflush(stdout);
  std::fflush(stderr);
  const std::string where = "cannot write '" + shown + "': ";
  // Standard output or error itself (/dev/stdout, a FIFO or file the shell opened as either):
  // written through that descriptor, at its offset, so that what the process prints after
  // follows the report instead of writing over it. A path that names the descriptor
  // (/dev/stderr, /dev/fd/2, /proc/self/fd/2) is that one, even when the other is the same file
  // (`> out 2> out`, two opens at two offsets); any other is matched by device and inode.
  const int named = named_descriptor(path);
  if (named == 1 || named == 2) {
    if (!write_all(named, text)) return Error{where + errno_text(errno)};
    return {};
  }
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    for (int own : {1, 2}) {
      struct stat fd_st {};
      if (::fstat(own, &fd_st) != 0 || fd_st.st_dev != st.st_dev || fd_st.st_ino != st.st_ino) {
        continue;
      }
      if (!write_all(own, text)) return Error{where + errno_text(errno)};
      return {};
    }
  }
  // O_APPEND: a file reached through /proc (/dev/fd/N, `>> out`) is added to, as the open
  // descriptor would write it, not written over from its start. O_NONBLOCK: a FIFO no process
  // reads is an error now (ENXIO), not a wait without end; writing then blocks as usual.
  const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENXIO && S_ISFIFO(st.st_mode)) {
      return Error{where + "no process is reading FIFO " + path};
    }
    return Error{where + errno_text(errno)};
  }
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  const bool written = write_all(fd, text);
  const int write_error = errno;
  const bool closed = ::close(fd) == 0;
  if (!written || !closed) return Error{where + errno_text(written ? errno : write_error)};
  return {};
}

}  // namespace

Expected<void> StagedReport::commit() {
  if (target_.stream) {
    auto written = write_stream(path_, target_.path, text_);
    target_.stream = false;  // written once
    text_.clear();
    return written;
  }
  if (temp_.empty()) return {};
  // The final owner, then mode (a change of owner may clear set-user-ID bits), on the
  // descriptor written, only now that the text is whole and the rename follows.
  if (chown_) (void)::fchown(temp_fd_, owner_, group_);
  const bool moded = ::fchmod(temp_fd_, mode_) == 0;
  const int mode_error = errno;
  const bool closed = ::close(temp_fd_) == 0;
  const int close_error = errno;
  temp_fd_ = -1;
  if (!moded || !closed) {
    discard();
    return Error{"cannot write '" + path_ + "': " + errno_text(moded ? close_error : mode_error)};
  }
  if (::renameat(dir_fd_, temp_.c_str(), dir_fd_, name_.c_str()) != 0) {
    const int error = errno;
    discard();
    return Error{"cannot write '" + path_ + "': cannot rename a temporary file onto '" +
                 target_.path + "' (" + errno_text(error) + ")"};
  }
  temp_.clear();
  discard();
  return {};
}

Expected<void> write_report_file(const std::string& path, const std::string& text) {
  auto staged = StagedReport::stage(path, text);
  if (!staged) return Error{staged.message()};
  return staged->commit();
}

}  // namespace benchgate::report
