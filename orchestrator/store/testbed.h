// The testbed fingerprint (docs/MEASUREMENT.md, "Environment"): what machine and build a run was
// measured on, read from the running system, so gates compare like with like.
#pragma once

#include <string>

#include "orchestrator/store/records.h"

namespace benchgate::store {

// The compiler that built benchgate: BENCHGATE_COMPILER when the build defines it, else the
// compiler's own __VERSION__.
std::string default_compiler();
// BENCHGATE_BUILD_FLAGS when the build defines it (the top-level CMake computes it), else "".
std::string default_build_flags();

// Reads CPU model (/proc/cpuinfo), online cores, kernel (uname), CPU governor (cpufreq, or
// "unknown" where not readable) and host name (BENCHGATE_TESTBED_HOST when set). Compiler and build
// flags are the caller's: they describe the measured binaries, which may not be this one.
Testbed detect_testbed(const std::string& compiler = default_compiler(),
                       const std::string& build_flags = default_build_flags());

}  // namespace benchgate::store
