#include "orchestrator/workers/describe_rules.h"

#include <algorithm>

#include "common/util/shown_list.h"

namespace benchgate::workers {
namespace {

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

}  // namespace benchgate::workers
