// JSON columns of the store (labels, errors by kind, flags, baseline runs): written and read
// with nlohmann::json so any SQLite JSON function can query them.
#include <nlohmann/json.hpp>

#include "orchestrator/store/store_internal.h"

namespace benchgate::store::internal {
namespace {

nlohmann::json parse(const std::string& text) {
  return nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
}

}  // namespace

std::string to_json(const std::map<std::string, std::string>& m) {
  return nlohmann::json(m).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}
std::string to_json(const std::map<std::string, uint64_t>& m) {
  return nlohmann::json(m).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}
std::string to_json(const std::vector<std::string>& v) {
  return nlohmann::json(v).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}
std::string to_json(const std::vector<int64_t>& v) {
  return nlohmann::json(v).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string to_json(const std::vector<StoredSessionsEnded>& v) {
  nlohmann::json j = nlohmann::json::array();
  for (const StoredSessionsEnded& e : v) {
    j.push_back({{"worker", e.worker}, {"reason", e.reason}, {"sessions", e.sessions}});
  }
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::map<std::string, std::string> string_map_from_json(const std::string& text) {
  std::map<std::string, std::string> out;
  const auto j = parse(text);
  if (!j.is_object()) return out;
  for (const auto& [k, v] : j.items()) {
    if (v.is_string()) out[k] = v.get<std::string>();
  }
  return out;
}

std::map<std::string, uint64_t> count_map_from_json(const std::string& text) {
  std::map<std::string, uint64_t> out;
  const auto j = parse(text);
  if (!j.is_object()) return out;
  for (const auto& [k, v] : j.items()) {
    if (v.is_number_unsigned()) out[k] = v.get<uint64_t>();
  }
  return out;
}

std::vector<std::string> strings_from_json(const std::string& text) {
  std::vector<std::string> out;
  const auto j = parse(text);
  if (!j.is_array()) return out;
  for (const auto& v : j) {
    if (v.is_string()) out.push_back(v.get<std::string>());
  }
  return out;
}

std::vector<int64_t> ints_from_json(const std::string& text) {
  std::vector<int64_t> out;
  const auto j = parse(text);
  if (!j.is_array()) return out;
  for (const auto& v : j) {
    if (v.is_number_integer()) out.push_back(v.get<int64_t>());
  }
  return out;
}

std::vector<StoredSessionsEnded> sessions_ended_from_json(const std::string& text) {
  std::vector<StoredSessionsEnded> out;
  const auto j = parse(text);
  if (!j.is_array()) return out;
  for (const auto& v : j) {
    if (!v.is_object() || !v.contains("worker") || !v["worker"].is_number_integer() ||
        !v.contains("reason") || !v["reason"].is_string() || !v.contains("sessions") ||
        !v["sessions"].is_number_unsigned()) {
      continue;
    }
    out.push_back({v["worker"].get<int64_t>(), v["reason"].get<std::string>(),
                   v["sessions"].get<uint64_t>()});
  }
  return out;
}

}  // namespace benchgate::store::internal
