// See pinned_programs.h.
#include "orchestrator/processes/pinned_programs.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <mutex>

#include "common/util/errno_text.h"

namespace benchgate::processes {
namespace {

std::mutex& registry_mutex() {
  static std::mutex mutex;
  return mutex;
}
const std::map<std::string, PinnedFile>*& installed_files() {
  static const std::map<std::string, PinnedFile>* files = nullptr;
  return files;
}

// The first two bytes of the file behind `fd` (an O_PATH descriptor reads nothing itself), read
// through its /proc/self/fd link, which opens that file whatever its path names now. One that
// cannot be read is no script: no interpreter could read it either.
bool starts_with_shebang(int fd) {
  const std::string link = "/proc/self/fd/" + std::to_string(fd);
  const int readable = ::open(link.c_str(), O_RDONLY | O_CLOEXEC);
  if (readable < 0) return false;
  char head[2] = {};
  const bool script =
      ::pread(readable, head, sizeof head, 0) == 2 && head[0] == '#' && head[1] == '!';
  ::close(readable);
  return script;
}

}  // namespace

OpenDescriptor::~OpenDescriptor() { ::close(fd_); }

PinnedPrograms::~PinnedPrograms() {
  if (installed_) {
    std::lock_guard lock(registry_mutex());
    installed_files() = nullptr;
  }
}

void PinnedPrograms::pin(const std::string& path) {
  if (files_.count(path)) return;
  PinnedFile file;
  file.fd = ::open(path.c_str(), O_PATH | O_CLOEXEC);
  struct stat info {};
  if (file.fd < 0) {
    file.problem = errno_text(errno);
  } else if (::fstat(file.fd, &info) != 0) {
    file.problem = errno_text(errno);
    ::close(file.fd);
    file.fd = -1;
  } else {
    file.open = std::make_shared<const OpenDescriptor>(file.fd);
    file.device = info.st_dev;
    file.inode = info.st_ino;
    file.script = starts_with_shebang(file.fd);
  }
  files_.emplace(path, std::move(file));
}

bool PinnedPrograms::names_another_file(const std::string& path) const {
  const auto it = files_.find(path);
  return it != files_.end() && it->second.fd >= 0 && !names_pinned_file(path, it->second);
}

bool PinnedPrograms::install() {
  std::lock_guard lock(registry_mutex());
  if (installed_files() != nullptr) return false;
  installed_files() = &files_;
  installed_ = true;
  return true;
}

std::optional<PinnedFile> pinned_file(const std::string& path) {
  std::lock_guard lock(registry_mutex());
  const auto* files = installed_files();
  if (files == nullptr) return std::nullopt;
  const auto it = files->find(path);
  if (it == files->end()) return std::nullopt;
  return it->second;
}

bool names_pinned_file(const std::string& path, const PinnedFile& pinned) {
  struct stat info {};
  return pinned.fd >= 0 && ::stat(path.c_str(), &info) == 0 && info.st_dev == pinned.device &&
         info.st_ino == pinned.inode;
}

}  // namespace benchgate::processes
