// See definition_differences.h.
#include "orchestrator/store/definition_differences.h"

#include <nlohmann/json.hpp>

namespace benchgate::store {
namespace {

// A value longer than this (a header map, a payload) is shortened: the key names the change.
constexpr size_t kMostValueChars = 40;

std::string shown(const nlohmann::json* value) {
  if (value == nullptr) return "none";
  std::string text = value->dump();
  if (text.size() > kMostValueChars) text = text.substr(0, kMostValueChars - 3) + "...";
  return text;
}

void differences(const nlohmann::json* before, const nlohmann::json* after, const std::string& path,
                 const std::string& before_label, const std::string& after_label,
                 std::vector<std::string>& out) {
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

}  // namespace

std::vector<std::string> definition_differences(const std::string& before, const std::string& after,
                                                const std::string& before_label,
                                                const std::string& after_label) {
  const nlohmann::json b = nlohmann::json::parse(before, nullptr, false);
  const nlohmann::json a = nlohmann::json::parse(after, nullptr, false);
  std::vector<std::string> out;
  if (!b.is_object() || !a.is_object()) return out;
  differences(&b, &a, "", before_label, after_label, out);
  return out;
}

}  // namespace benchgate::store
