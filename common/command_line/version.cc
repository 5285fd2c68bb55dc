// See version.h.
#include "common/command_line/version.h"

namespace benchgate::command_line {

const char* version() { return BENCHGATE_VERSION; }

void add_version_flag(CLI::App& app) { app.set_version_flag("--version", version()); }

}  // namespace benchgate::command_line
