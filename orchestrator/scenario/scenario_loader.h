// Loads scenario files into the typed model and validates everything before anything runs.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/util/expected.h"
#include "orchestrator/scenario/scenario.h"

namespace benchgate::scenario {

// One problem in a scenario file.
struct Diagnostic {
  Location where;
  std::string message;  // "unknown key 'conections' in [[workloads]] (did you mean 'connections'?)"

  // "FILE:LINE:COLUMN: error: MESSAGE" ("FILE: error: MESSAGE" when the file cannot be read).
  std::string format() const;
};

// Every problem found in one file (not just the first), or the scenario.
struct LoadResult {
  std::optional<Scenario> scenario;
  std::vector<Diagnostic> diagnostics;
  // A signal caught while the file's pipe was waited on (Ctrl-C) ended the read: the load did
  // not fail on the file, it was stopped, and a command exits as for an interrupt (3), reading
  // no further file. The diagnostic says "interrupted while waiting for the pipe".
  bool interrupted = false;
  bool ok() const { return scenario.has_value() && diagnostics.empty(); }
};

// How long a scenario read from a pipe (`validate <(generate)`, `run /dev/stdin`) may go without
// a byte before the load gives up: a named pipe nobody writes, or a generator that stalls
// without closing its end, would otherwise hold `validate` and `run` for ever.
inline constexpr std::chrono::milliseconds kScenarioPipeIdleTimeout = std::chrono::seconds(10);

// What a load may consult outside the text, injected so that tests control it.
struct LoadOptions {
  // ${env:NAME}; unset: the process environment.
  std::function<std::optional<std::string>(const std::string& name)> getenv;
  // ${port:NAME}; unset: a free port on 127.0.0.1 (bind to port 0, read it, close).
  std::function<Expected<uint16_t>()> allocate_port;
  // The text was sent by a client of `orchestrator serve`: ${env:NAME} and ${scenario_dir}
  // are errors (interpolation.h).
  bool submitted = false;
  // The text is a stored run's, judged again (`orchestrator gate RUN`): a [[gates]] table the
  // loader refuses (a rule added since the run, such as a gate on a figure its workload can
  // never measure) does not fail the load, but is kept with Gate::refused saying why. Any other
  // problem fails the load as it does for a file.
  bool keep_refused_gates = false;
  // load_scenario_file: the longest wait for a pipe's next bytes (tests shorten it).
  std::chrono::milliseconds pipe_idle_timeout = kScenarioPipeIdleTimeout;
  // load_scenario_file: asked while a pipe is waited on; true ends the wait as a caught signal
  // does (LoadResult::interrupted). The commands pass the orchestrator's Ctrl-C flag, so that a
  // Ctrl-C landing just before the wait began is not lost for pipe_idle_timeout. Unset: only a
  // signal that interrupts the wait itself ends it.
  std::function<bool()> stop_requested;
  // load_scenario_file: a regular file only, judged on the descriptor it reads (open, then
  // fstat), so that a FIFO or device put in the file's place after a caller looked at the name
  // is refused at once, never waited on. `serve` reads its scenarios folder so.
  bool regular_file_only = false;
  // Bounds on what the scenario holds, 0 for none: its workloads (each value of a `sweep`
  // counted as one workload, as it runs) and its [[gates]] tables. Counted on the parsed TOML
  // before any section is read, so that a scenario over them costs its parse and no more (a
  // gate's glob is matched against every workload: gates x workloads). `serve` sets them for a
  // client's scenario (admission.h); a file of the operator's has none.
  size_t max_workloads = 0;
  size_t max_gates = 0;
};

// The largest scenario file read (4 MiB): a scenario is a few kilobytes of TOML, and a larger
// file is a mistake (docs/SCENARIOS.md, "Scenario files").
inline constexpr uint64_t kMaxScenarioFileBytes = uint64_t{4} << 20;

// Reads and validates one file: a regular file, or a pipe or FIFO read once to its end (no byte
// for options.pipe_idle_timeout is an error; refused with options.regular_file_only), of at
// most kMaxScenarioFileBytes; a device, a folder or a socket is refused before it is read. The text
// read is the Scenario's `text`, what a run stores: nothing opens the file again.
LoadResult load_scenario_file(const std::string& path);
LoadResult load_scenario_file(const std::string& path, const LoadOptions& options);

// Validates text as if it were the file at `path` (used by tests and by `serve`).
// ${scenario_dir} is the folder of `path`.
LoadResult load_scenario_text(std::string_view text, const std::string& path);
LoadResult load_scenario_text(std::string_view text, const std::string& path,
                              const LoadOptions& options);

}  // namespace benchgate::scenario
