// Testbed detection and fingerprint (testbed.h).
#include "orchestrator/store/testbed.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include "orchestrator/store/sha256.h"

namespace benchgate::store {
namespace {

std::string trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return {};
  const size_t e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  // x86 names the model "model name"; some ARM kernels only give "Hardware" or "Model".
  std::string fallback;
  while (std::getline(in, line)) {
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string key = trim(line.substr(0, colon));
    if (key == "model name") return trim(line.substr(colon + 1));
    if ((key == "Hardware" || key == "Model") && fallback.empty()) {
      fallback = trim(line.substr(colon + 1));
    }
  }
  return fallback.empty() ? "unknown" : fallback;
}

std::string governor() {
  std::ifstream in("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");
  std::string value;
  if (!std::getline(in, value) || trim(value).empty()) return "unknown";
  return trim(value);
}

std::string kernel() {
  utsname u{};
  if (uname(&u) != 0) return "unknown";
  return std::string(u.sysname) + " " + u.release + " " + u.machine;
}

std::string host() {
  // CI runners often get a fresh random host name per job; naming the runner class instead
  // lets their runs share series (the rest of the fingerprint still tells machines apart).
  if (const char* name = std::getenv("BENCHGATE_TESTBED_HOST"); name && *name) return name;
  char buf[256] = {};
  if (gethostname(buf, sizeof(buf) - 1) != 0) return "unknown";
  return buf;
}

}  // namespace

std::string Testbed::fingerprint() const {
  // One field per line, named, so no two different testbeds can produce the same text.
  const std::string text = "host=" + host + "\ncpu_model=" + cpu_model +
                           "\ncores=" + std::to_string(cores) + "\nkernel=" + kernel +
                           "\ngovernor=" + governor + "\ncompiler=" + compiler +
                           "\nbuild_flags=" + build_flags + "\n";
  return sha256_hex(text);
}

std::string default_compiler() {
#ifdef BENCHGATE_COMPILER
  return BENCHGATE_COMPILER;
#else
  return __VERSION__;
#endif
}

std::string default_build_flags() {
#ifdef BENCHGATE_BUILD_FLAGS
  return BENCHGATE_BUILD_FLAGS;
#else
  return "";
#endif
}

Testbed detect_testbed(const std::string& compiler, const std::string& build_flags) {
  Testbed t;
  t.host = host();
  t.cpu_model = cpu_model();
  const long cores = sysconf(_SC_NPROCESSORS_ONLN);
  t.cores = cores > 0 ? static_cast<uint32_t>(cores) : 0;
  t.kernel = kernel();
  t.governor = governor();
  t.compiler = compiler;
  t.build_flags = build_flags;
  return t;
}

}  // namespace benchgate::store
