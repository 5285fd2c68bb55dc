#include "orchestrator/sut/system_under_test.h"

#include "orchestrator/sut/builtin_router.h"
#include "orchestrator/sut/external_system.h"

namespace benchgate::sut {

std::unique_ptr<SystemUnderTest> make_system_under_test(const scenario::RouterConfig& config,
                                                        const SutContext& context) {
  switch (config.impl) {
    case scenario::RouterImpl::kBuiltin:
      return std::make_unique<BuiltinRouter>(config, context);
    case scenario::RouterImpl::kCommand:
    case scenario::RouterImpl::kExternal:
      return std::make_unique<ExternalSystem>(config, context);
  }
  return nullptr;
}

std::chrono::nanoseconds startup_time_given(const scenario::RouterConfig& config,
                                            const SutContext& context,
                                            std::chrono::steady_clock::time_point began,
                                            std::chrono::steady_clock::time_point deadline) {
  if (config.startup_timeout_ns > 0) return std::chrono::nanoseconds(config.startup_timeout_ns);
  if (context.default_startup_timeout.count() > 0) return context.default_startup_timeout;
  return std::chrono::duration_cast<std::chrono::nanoseconds>(deadline - began);
}

MetricsSnapshot difference(const MetricsSnapshot& before, const MetricsSnapshot& after) {
  MetricsSnapshot delta;
  delta.has_counters = before.has_counters && after.has_counters;
  for (const auto& [key, value] : after.counters) {
    if (before.uncounted.count(key) > 0) continue;
    auto it = before.counters.find(key);
    const uint64_t base = it == before.counters.end() ? 0 : it->second;
    if (value < base) {
      delta.went_down.insert(key);  // after - before would wrap to nearly 2^64
      continue;
    }
    delta.counters[key] = value - base;
  }
  // A series gone from the reading after the window (a restart: client libraries create
  // labelled series again only when first used) was not measured in it either. A reading
  // without counters lacks none: the delta then has no counters at all.
  for (const auto& entry : before.counters) {
    if (!after.has_counters) break;
    if (after.counters.count(entry.first) == 0 && after.uncounted.count(entry.first) == 0) {
      delta.went_down.insert(entry.first);
    }
  }
  delta.has_requests = before.has_requests && after.has_requests;
  delta.requests =
      after.requests >= before.requests ? after.requests - before.requests : after.requests;
  delta.has_resources =
      before.has_resources && after.has_resources && after.cpu_seconds >= before.cpu_seconds;
  if (delta.has_resources) {
    delta.cpu_seconds = after.cpu_seconds - before.cpu_seconds;
    delta.rss_bytes = after.rss_bytes;
  }
  delta.handling = after.handling;
  return delta;
}

}  // namespace benchgate::sut
