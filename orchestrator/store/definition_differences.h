// What changed between two definitions of a workload (store::workload_params_json text): the
// no_baseline verdict of a changed definition (gating/other_definition.h) and `orchestrator
// compare` (history/run_comparison.h) both name the changed parameters with it. Header-only, on
// nlohmann::json alone, so that history/, whose tests compile its sources without the store,
// needs nothing more.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace benchgate::store {

namespace definition_detail {

// A value longer than this (a header map, a payload) is shortened: the key names the change.
inline constexpr size_t kMostValueChars = 40;

inline std::string shown(const nlohmann::json* value) {
  if (value == nullptr) return "none";
  std::string text = value->dump();
  if (text.size() > kMostValueChars) text = text.substr(0, kMostValueChars - 3) + "...";
  return text;
}

inline void differences(const nlohmann::json* before, const nlohmann::json* after,
                        const std::string& path, const std::string& before_label,
                        const std::string& after_label, std::vector<std::string>& out) {
  const bool objects = before && after && before->is_object() && after->is_object();
  if (objects) {
    // Both sorted by key (nlohmann::json's objects are std::map): one merge of the two.
    auto b = before->begin();
    auto a = after->begin();
    while (b != before->end() || a != after->end()) {
      const bool take_b = a == after->end() || (b != before->end() && b.key() <= a.key());
      const bool take_a = b == before->end() || (a != after->end() && a.key() <= b.key());
      const std::string key = take_b ? b.key() : a.key();
      differences(take_b ? &*b : nullptr, take_a ? &*a : nullptr,
                  path.empty() ? key : path + "." + key, before_label, after_label, out);
      if (take_b) ++b;
      if (take_a) ++a;
    }
    return;
  }
  if (before && after && *before == *after) return;
  out.push_back(path + " (" + before_label + ": " + shown(before) + ", " + after_label + ": " +
                shown(after) + ")");
}

}  // namespace definition_detail

// The parameters in which two definitions differ, a nested key as its dotted path, in key
// order, each with its value in both, labelled: "duration_ns (run 1: 1000000000, now:
// 1500000000)" for the labels "run 1" and "now". A key only one of them has shows "none" in the
// other; a long value is shortened. Text that is no JSON object gives nothing.
inline std::vector<std::string> definition_differences(const std::string& before,
                                                       const std::string& after,
                                                       const std::string& before_label,
                                                       const std::string& after_label) {
  const nlohmann::json b = nlohmann::json::parse(before, nullptr, false);
  const nlohmann::json a = nlohmann::json::parse(after, nullptr, false);
  std::vector<std::string> out;
  if (!b.is_object() || !a.is_object()) return out;
  definition_detail::differences(&b, &a, "", before_label, after_label, out);
  return out;
}

}  // namespace benchgate::store
