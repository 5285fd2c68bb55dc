// The rule for a baseline's name, shared by the store (`baseline add`, `--promote`) and the
// scenario loader (a gate's `baseline`), so that a name one refuses the other refuses too.
#pragma once

#include <string>
#include <string_view>

namespace benchgate {

// Why `name` cannot name a baseline, or "": it must have 1 to 100 characters, each a letter,
// a digit, '_', '-' or '.' (names appear in scenario files and on command lines).
std::string baseline_name_problem(std::string_view name);

}  // namespace benchgate
