// A workload's name with its variant as every report writes it: "hello [cand]", the plain name
// for "default" (a scenario without [compare]) and for no variant (a gate whose workload did not
// run names none). One spelling for the terminal's tables and gate table, JUnit, Markdown, HTML
// and `runs show`.
#pragma once

#include <string>

namespace benchgate::report {

inline std::string workload_title(const std::string& name, const std::string& variant) {
  return variant.empty() || variant == "default" ? name : name + " [" + variant + "]";
}

}  // namespace benchgate::report
