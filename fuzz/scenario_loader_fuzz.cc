// libFuzzer target: scenario::load_scenario_text over arbitrary bytes. The loader must return
// diagnostics or a scenario, never crash, hang or touch the environment; ports and env vars
// are injected so the fuzzer binds no socket and reads nothing outside the input.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "orchestrator/scenario/scenario_loader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace sc = benchgate::scenario;
  sc::LoadOptions options;
  options.getenv = [](const std::string& name) -> std::optional<std::string> {
    if (name == "SET") return std::string("value");
    return std::nullopt;
  };
  options.allocate_port = []() -> benchgate::Expected<uint16_t> { return uint16_t{40000}; };
  std::string_view text(reinterpret_cast<const char*>(data), size);
  sc::LoadResult result = sc::load_scenario_text(text, "/fuzz/scenario.toml", options);
  // Formatting every diagnostic exercises the location and message paths too.
  for (const sc::Diagnostic& d : result.diagnostics) (void)d.format();
  return 0;
}
