// See factories.h.
#include "orchestrator/engine/factories.h"

namespace benchgate::engine {
namespace {

class ProductionFactories : public Factories {
 public:
  std::unique_ptr<sut::SystemUnderTest> system_under_test(
      const scenario::RouterConfig& config, const sut::SutContext& context) const override {
    return sut::make_system_under_test(config, context);
  }
  std::unique_ptr<workers::WorkerPool> spawning_pool(
      const workers::SpawnConfig& config) const override {
    return workers::make_spawning_pool(config);
  }
  std::unique_ptr<workers::WorkerPool> connecting_pool(const std::vector<std::string>& addresses,
                                                       const std::string& token) const override {
    return workers::make_connecting_pool(addresses, token);
  }
};

}  // namespace

const Factories& production_factories() {
  static const ProductionFactories factories;
  return factories;
}

}  // namespace benchgate::engine
