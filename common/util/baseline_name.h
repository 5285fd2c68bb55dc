// The rule for a baseline's name, shared by the store (`baseline add`, `--promote`) and the
// scenario loader (a gate's `baseline`), so that a name one refuses the other refuses too.
#pragma once

#include <string>
#include <string_view>

namespace benchgate {

// Why `name` cannot name a baseline, or "": it must have 1 to 100 characters, each a letter,
// a digit, '_', '-' or '.' (names appear in scenario files and on command lines). The bare
// reason, for a caller that says first what the value is ("--promote " + reason): "must have
// 1 to 100 characters" or "'NAME' may contain only letters, digits, '_', '-' and '.'".
std::string baseline_name_reason(std::string_view name);

// The reason as a sentence of its own: "a baseline name must have 1 to 100 characters",
// "baseline name 'NAME' may contain only ...".
std::string baseline_name_problem(std::string_view name);

}  // namespace benchgate
