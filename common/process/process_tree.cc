#include "common/process/process_tree.h"

#include <unistd.h>

#include <charconv>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

namespace benchgate {
namespace {

namespace fs = std::filesystem;

bool parse_int(const std::string& text, int64_t& out) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size();
}

}  // namespace

std::optional<ProcessInfo> read_process(pid_t pid, const fs::path& proc) {
  const fs::path dir = proc / std::to_string(pid);
  std::ifstream stat(dir / "stat");
  std::string line;
  if (!std::getline(stat, line)) return std::nullopt;
  // "PID (COMM) STATE PPID ...": COMM may hold spaces and parentheses, so the fixed fields are
  // counted from the last ')'.
  const auto close = line.rfind(')');
  if (close == std::string::npos || close + 2 >= line.size()) return std::nullopt;
  std::istringstream fields(line.substr(close + 2));
  std::string field;
  ProcessInfo info;
  info.pid = pid;
  int64_t values[18] = {};
  for (int i = 3; i <= 17; ++i) {
    if (!(fields >> field)) return std::nullopt;
    if (i == 3) {
      info.state = field.empty() ? '?' : field[0];
    } else if (!parse_int(field, values[i])) {
      return std::nullopt;
    }
  }
  info.ppid = static_cast<pid_t>(values[4]);
  info.pgid = static_cast<pid_t>(values[5]);
  const int64_t ticks = ::sysconf(_SC_CLK_TCK);
  info.cpu_ns = (values[14] + values[15]) * 1'000'000'000 / ticks;
  info.waited_children_cpu_ns = (values[16] + values[17]) * 1'000'000'000 / ticks;
  std::ifstream statm(dir / "statm");
  uint64_t size_pages = 0;
  uint64_t resident_pages = 0;
  if (statm >> size_pages >> resident_pages) {
    info.rss_bytes = resident_pages * static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  }
  return info;
}

std::vector<ProcessInfo> list_processes(const fs::path& proc) {
  std::vector<ProcessInfo> out;
  std::error_code ec;
  for (fs::directory_iterator it(proc, ec), end; !ec && it != end; it.increment(ec)) {
    int64_t pid = 0;
    if (!parse_int(it->path().filename().string(), pid) || pid <= 0) continue;
    // A process that exits between the listing and the read is simply not there.
    if (auto info = read_process(static_cast<pid_t>(pid), proc)) out.push_back(*info);
  }
  return out;
}

std::vector<ProcessInfo> process_tree(const std::vector<ProcessInfo>& all, pid_t root) {
  std::multimap<pid_t, size_t> children;  // ppid -> index in all
  const ProcessInfo* root_info = nullptr;
  for (size_t i = 0; i < all.size(); ++i) {
    children.emplace(all[i].ppid, i);
    if (all[i].pid == root) root_info = &all[i];
  }
  if (!root_info) return {};
  std::vector<ProcessInfo> tree;
  std::set<pid_t> seen;
  std::vector<pid_t> pending = {root};
  // Group members count only when root leads its group (every spawned child does).
  for (const auto& p : all) {
    if (p.pid != root && root_info->pgid == root && p.pgid == root) pending.push_back(p.pid);
  }
  std::map<pid_t, const ProcessInfo*> by_pid;
  for (const auto& p : all) by_pid[p.pid] = &p;
  // Breadth first from root, so root comes first; `seen` ends cycles a racy read could make.
  for (size_t next = 0; next < pending.size(); ++next) {
    const pid_t pid = pending[next];
    if (!seen.insert(pid).second) continue;
    tree.push_back(*by_pid[pid]);
    auto [begin, end] = children.equal_range(pid);
    for (auto it = begin; it != end; ++it) pending.push_back(all[it->second].pid);
  }
  return tree;
}

std::optional<TreeUsage> process_tree_usage(pid_t root, const fs::path& proc) {
  auto tree = process_tree(list_processes(proc), root);
  if (tree.empty()) return std::nullopt;
  TreeUsage usage;
  for (const auto& p : tree) {
    usage.cpu_ns += p.cpu_ns + p.waited_children_cpu_ns;
    usage.rss_bytes += p.rss_bytes;
    ++usage.processes;
  }
  return usage;
}

}  // namespace benchgate
