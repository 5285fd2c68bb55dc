// `sweep` in a workload: one parameter (request_bytes, connections, rate) sampled over several
// values, each value its own workload named NAME@PARAMETER=VALUE, so that the report can fit
// how cost grows with it.
#include <optional>
#include <string>

#include "common/units/units.h"
#include "common/util/shown_text.h"
#include "orchestrator/scenario/protocol_keys.h"
#include "orchestrator/scenario/sections.h"

namespace benchgate::scenario {
namespace {

// One value of the swept array: an integer, or for sizes also a string such as "64KiB" (then
// `written` is that text, for messages: size_text).
std::optional<uint64_t> sweep_value(Diagnostics& diag, const toml::node& v, bool size, uint64_t min,
                                    std::string& written) {
  std::optional<uint64_t> out;
  written.clear();
  if (auto i = v.value<int64_t>(); i && v.is_integer() && *i >= 0) {
    out = static_cast<uint64_t>(*i);
  } else if (size && v.is_string()) {
    written = *v.value<std::string>();
    auto parsed = parse_size_bytes(written);
    if (!parsed) {
      // The units library's message shows the value escaped already.
      diag.error(v.source(), "sweep value: " + parsed.message());
      return std::nullopt;
    }
    out = *parsed;
  } else {
    diag.error(v.source(),
               std::string("sweep values must be ") +
                   (size ? "sizes (integers or strings such as \"64KiB\")" : "positive integers") +
                   ", got " + std::string(toml_type_name(v)));
    return std::nullopt;
  }
  if (*out < min) {
    diag.error(v.source(),
               "sweep value " + std::to_string(*out) + " must be at least " + std::to_string(min));
    return std::nullopt;
  }
  return out;
}

// Why workload `w` cannot take a rate whatever its value, worded to follow "sweep parameter
// 'rate' ", or nothing: the rules a workload's own rate obeys (load_shape_limits.cc).
std::optional<std::string> open_loop_refused(const Workload& w) {
  if (auto closed = closed_loop_only(w))
    return "needs an open loop, and " + std::string(closed->why);
  return open_loop_in_flight_problem(w.in_flight);
}

}  // namespace

std::vector<Workload> expand_sweep(TableReader& r, const Workload& w) {
  if (!r.has("sweep")) return {w};
  Diagnostics& diag = r.diagnostics();
  const toml::node* node = r.node("sweep");
  const toml::table* table = node->as_table();
  if (!table || table->size() != 1) {
    diag.error(r.value_location("sweep"),
               "key 'sweep' must be a table with one parameter, such as "
               "sweep = { request_bytes = [64, 1024, 65536] }, sweep = { connections = [...] } or "
               "sweep = { rate = [...] }");
    return {w};
  }
  auto entry = *table->begin();  // a proxy holding references into the table
  const toml::key& key = entry.first;
  const toml::node& values = entry.second;
  const std::string parameter(key.str());
  const bool size = parameter == "request_bytes";
  const bool rate = parameter == "rate";
  if (!size && !rate && parameter != "connections") {
    diag.error(diag.at(key.source()), "sweep parameter '" + shown_text(parameter) +
                                          "' is not supported (request_bytes, connections, rate)");

    return {w};
  }
  if (rate) {
    if (auto why = open_loop_refused(w)) {
      diag.error(diag.at(key.source()),
                 "sweep parameter 'rate' " + *why + ": workload '" + shown_text(w.name) + "'");
      return {w};
    }
  }
  // The protocol's rule for the key itself (a plain request_bytes or connections).
  if (auto why = protocol_refuses(w.protocol, parameter)) {
    diag.error(diag.at(key.source()), "sweep parameter '" + parameter + "' " + *why +
                                          ": workload '" + shown_text(w.name) + "' is " +
                                          to_string(w.protocol));
    return {w};
  }
  const toml::array* array = values.as_array();
  if (!array || array->size() < 2) {
    diag.error(values.source(),
               "sweep." + shown_text(parameter) + " must be an array of at least two values");
    return {w};
  }
  // Each thread needs a connection, as for a plain workload; a rate is whole requests/s.
  const uint64_t min = size ? 0 : rate ? 1 : uint64_t{w.workers} * w.threads;
  std::vector<Workload> out;
  uint64_t previous = 0;
  for (const toml::node& element : *array) {
    std::string written;
    auto value = sweep_value(diag, element, size, min, written);
    if (!value) continue;
    if (!out.empty() && *value <= previous) {
      diag.error(element.source(), "sweep." + shown_text(parameter) + " values must increase");

      continue;
    }
    previous = *value;
    Workload expanded = w;
    if (size && !is_http(w.protocol)) {
      if (auto problem = wamp_payload_problem(w.wamp, *value, size_text(written, *value))) {
        diag.error(element.source(), "sweep value " + *problem);
        continue;
      }
      expanded.wamp.request_bytes = *value;
    } else if (size) {
      if (auto problem = pipelined_body_problem(*value, w.in_flight, size_text(written, *value))) {
        diag.error(element.source(), "sweep value: " + *problem);
        continue;
      }
      expanded.http.request_bytes = *value;
    } else if (rate) {
      // The bundled worker's schedule per connection (wamp_pubsub: per publisher), as for a
      // workload's own rate.
      const bool pubsub = w.protocol == Protocol::kWampPubSub;
      if (auto problem = rate_problem(static_cast<double>(*value),
                                      pubsub ? w.wamp.publishers : w.connections, pubsub)) {
        diag.error(element.source(), "sweep value: " + *problem);
        continue;
      }
      expanded.rate = static_cast<double>(*value);
    } else {
      // The bundled worker's limits, as for a workload's own connections (the value is checked
      // before it is narrowed to 32 bits).
      auto problem = connections_problem(*value, w.workers, worker_callee_sessions(w));
      if (!problem) problem = rate_problem(w.rate, *value, /*publishers=*/false);
      if (problem) {
        diag.error(element.source(), "sweep value: " + *problem);
        continue;
      }
      expanded.connections = static_cast<uint32_t>(*value);
    }
    expanded.name = w.name + "@" + parameter + "=" + std::to_string(*value);
    expanded.sweep_of = w.name;
    expanded.sweep_parameter = parameter;
    expanded.sweep_value = *value;
    out.push_back(std::move(expanded));
  }
  if (out.empty()) return {w};
  return out;
}

}  // namespace benchgate::scenario
