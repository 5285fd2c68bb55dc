#include "orchestrator/workers/describe_rules.h"

#include <algorithm>
#include <vector>

#include "common/util/shown_list.h"

namespace benchgate::workers {
namespace {

// `list` (", " between its items) with `item` added unless empty or listed already.
void add_distinct(std::vector<std::string>& list, const std::string& item) {
  if (!item.empty() && std::find(list.begin(), list.end(), item) == list.end()) {
    list.push_back(item);
  }
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

bool lists(const google::protobuf::RepeatedPtrField<std::string>& listed,
           const std::string& wanted) {
  return listed.empty() || std::find(listed.begin(), listed.end(), wanted) != listed.end();
}

}  // namespace

std::string described_list(const google::protobuf::RepeatedPtrField<std::string>& listed) {
  ShownList list(ShownList::kItems, ShownList::kItemBytes, ShownList::kBare);
  for (const std::string& item : listed) list.add(item);
  return list.empty() ? "none" : list.text();
}

const char* load_model_of(const scenario::Workload& workload) {
  return workload.rate > 0 ? "open" : "closed";
}

std::string unserved(const v1::DescribeResponse& described, const scenario::Workload& workload) {
  const std::string asks = "; workload '" + workload.name + "' asks for ";
  const std::string protocol = scenario::to_string(workload.protocol);
  if (!lists(described.protocols(), protocol)) {
    return "lists protocols " + described_list(described.protocols()) + asks + protocol;
  }
  const std::string model = load_model_of(workload);
  if (!lists(described.load_models(), model)) {
    return "lists load models " + described_list(described.load_models()) + asks + model +
           (workload.rate > 0 ? " (it sets a rate)" : " (it sets no rate)");
  }
  return {};
}

std::optional<Error> refuse_unserved(const WorkerPool& pool, size_t count,
                                     const scenario::Workload& workload) {
  for (size_t w = 0; w < count && w < pool.size(); ++w) {
    const std::string problem = unserved(pool.description(w), workload);
    if (problem.empty()) continue;
    const std::string command = pool.command_line();
    const std::string who = command.empty()
                                ? pool.name(w)
                                : "worker '" + workload.worker + "' (command " + command + ")";
    return Error{who + " " + problem};
  }
  return std::nullopt;
}

DescribedAs described_as(const WorkerPool& pool, size_t count) {
  std::vector<std::string> names, versions;
  for (size_t w = 0; w < count && w < pool.size(); ++w) {
    const v1::DescribeResponse described = pool.description(w);
    add_distinct(names, shown_cut(described.name(), ShownList::kItemBytes));
    add_distinct(versions, shown_cut(described.version(), ShownList::kItemBytes));
  }
  return {joined(names), joined(versions)};
}

DescribedAs merge_described(const DescribedAs& so_far, const DescribedAs& more) {
  auto merged = [](const std::string& a, const std::string& b) {
    if (a.empty()) return b;
    const bool listed = (", " + a + ", ").find(", " + b + ", ") != std::string::npos;
    return b.empty() || listed ? a : a + ", " + b;
  };
  return {merged(so_far.name, more.name), merged(so_far.version, more.version)};
}

}  // namespace benchgate::workers
