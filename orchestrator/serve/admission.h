// What `serve` accepts: a scenario by name from its own folder (trusted: the operator put it
// there), or a scenario sent by a client, which may start only the commands the operator
// allowed (--allow-command). Everything is validated before a job is queued.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "orchestrator/scenario/scenario.h"

namespace benchgate::serve {

struct AdmissionPolicy {
  std::string scenarios_dir;
  std::vector<std::string> allowed_commands;  // executables a submitted scenario may spawn
};

enum class Refusal { kNone, kNotFound, kInvalid, kDenied };

struct Admission {
  std::optional<scenario::Scenario> scenario;
  Refusal refusal = Refusal::kNone;
  std::string message;  // why it was refused: diagnostics, one per line
};

// "quickstart" or "quickstart.toml" in the scenarios folder.
Admission admit_by_name(const std::string& name, const AdmissionPolicy& policy);
// A client's file: its name (for diagnostics) and text.
Admission admit_content(const std::string& file_name, const std::string& text,
                        const AdmissionPolicy& policy);
// Every *.toml file of the folder, in name order (for --every); invalid files are skipped
// with their diagnostics in `problems`.
std::vector<scenario::Scenario> scenarios_in(const std::string& dir, std::string& problems);

}  // namespace benchgate::serve
