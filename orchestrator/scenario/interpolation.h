// ${...} substitution in scenario strings (docs/SCENARIOS.md, "Interpolation"):
//   ${scenario_dir}  the absolute folder of the scenario file (the working directory for
//                    one read through /dev/stdin or /dev/fd/N)
//   ${env:NAME}      an environment variable; an error names it when it is unset
//   ${port:NAME}     a free loopback port, allocated once per NAME per load, for at most
//                    kMaxPortNames names
// A '$' not followed by '{' is kept as it is. In a scenario submitted to `orchestrator serve`
// ${scenario_dir} and ${env:NAME} are errors: they would read the service's environment and
// folders for a client (README "Security").
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "common/util/expected.h"

namespace benchgate::scenario {

// The most distinct ${port:NAME} names one scenario may use. A scenario needs one per address
// of the systems it starts (a handful); each name costs a port checked by binding it, and a
// 4 MiB file could otherwise name 250,000 of them, more than the machine has ports.
inline constexpr size_t kMaxPortNames = 64;

using EnvLookup = std::function<std::optional<std::string>(const std::string& name)>;
using PortAllocator = std::function<Expected<uint16_t>()>;

class Interpolator {
 public:
  // Environment and ports are injected so tests need neither a real environment nor sockets.
  // `submitted`: the text comes from a client of a service, not from this machine's user.
  Interpolator(std::string scenario_dir, EnvLookup env, PortAllocator allocate_port,
               bool submitted = false);
  // The text comes from a client of a service: nothing in it may read this machine.
  bool submitted() const { return submitted_; }

  // The text with every ${...} replaced, or an error about the first one that cannot be.
  Expected<std::string> expand(std::string_view text);

  // Every ${port:NAME} allocated so far, by NAME.
  const std::map<std::string, uint16_t>& ports() const { return ports_; }

 private:
  Expected<std::string> resolve(std::string_view expression);

  std::string scenario_dir_;
  EnvLookup env_;
  PortAllocator allocate_port_;
  bool submitted_ = false;
  std::map<std::string, uint16_t> ports_;
  std::set<uint16_t> taken_;  // the values of ports_, so a new port is checked in O(log n)
};

// The folder holding the scenario file `path` as written ("a/b.toml": "a"; "b.toml": empty, the
// working directory). A scenario read through a descriptor's name (/dev/stdin, /dev/fd/63 from
// `<(generate)`, /proc/self/fd/N) has no folder of its own: empty, the working directory, not
// /dev/fd (docs/SCENARIOS.md, "Scenario files").
std::filesystem::path folder_of_scenario(const std::string& path);

// The folder of the scenario file `path` (folder_of_scenario), absolute and without a trailing
// slash ("." resolved).
std::string scenario_dir_of(const std::string& path);

// A file the scenario names (tls_cert, ca_file, auth_config, ...): `path` itself when absolute,
// else read against the folder of `scenario_file` (folder_of_scenario), lexically normalised.
std::string path_beside_scenario(const std::string& scenario_file, const std::string& path);

}  // namespace benchgate::scenario
