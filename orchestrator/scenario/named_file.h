// The text of a file a scenario key names (`ca_file`, a WAMP `secret_file`, [router]
// `auth_config`), read as the scenario file itself is (common/util/regular_file.h): one open,
// checked on the opened descriptor, so a FIFO or a device is refused before it is read and the
// file checked is the file read, and at most kMaxScenarioFileBytes of it.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "orchestrator/scenario/table_reader.h"

namespace benchgate::scenario {

// The text of `path` (read beside the scenario file, path_beside_scenario, into `resolved`), or
// nothing after an error at `key`'s value: "no such file 'P'" for an empty or missing path, "'P'
// is a FIFO (named pipe), not a regular file" and the like for another kind of file or one too
// large, "'P': WHY" when it cannot be read.
std::optional<std::string> read_named_file(TableReader& r, std::string_view key,
                                           const std::string& path, std::string& resolved);

}  // namespace benchgate::scenario
