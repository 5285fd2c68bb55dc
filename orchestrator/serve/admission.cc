// See admission.h.
#include "orchestrator/serve/admission.h"

#include <algorithm>
#include <filesystem>

#include "orchestrator/scenario/scenario_loader.h"

namespace benchgate::serve {
namespace fs = std::filesystem;
namespace {

Admission from_load(scenario::LoadResult loaded) {
  Admission out;
  if (loaded.ok()) {
    out.scenario = std::move(loaded.scenario);
    return out;
  }
  out.refusal = Refusal::kInvalid;
  for (const auto& d : loaded.diagnostics) out.message += d.format() + "\n";
  if (out.message.empty()) out.message = "the scenario is invalid\n";
  return out;
}

// Two spellings of one executable compare equal (symlinks, "..", relative paths).
std::string canonical_or_same(const std::string& path) {
  std::error_code ec;
  auto canonical = fs::weakly_canonical(path, ec);
  return ec ? path : canonical.string();
}

}  // namespace

Admission admit_by_name(const std::string& name, const AdmissionPolicy& policy) {
  if (name.empty() || name.find('/') != std::string::npos || name.find('\\') != std::string::npos ||
      name.front() == '.') {
    return {std::nullopt, Refusal::kNotFound,
            "scenario name '" + name + "' must be a file name in the service's scenarios folder"};
  }
  const std::string file = name.size() > 5 && name.ends_with(".toml") ? name : name + ".toml";
  const fs::path path = fs::path(policy.scenarios_dir) / file;
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) {
    return {std::nullopt, Refusal::kNotFound,
            "no scenario '" + name + "' in " + policy.scenarios_dir};
  }
  return from_load(scenario::load_scenario_file(path.string()));
}

Admission admit_content(const std::string& file_name, const std::string& text,
                        const AdmissionPolicy& policy) {
  // Diagnostics name the client's file; ${scenario_dir} points nowhere on this machine.
  const std::string shown = file_name.empty() ? "submitted.toml" : file_name;
  Admission admitted = from_load(scenario::load_scenario_text(text, shown));
  if (!admitted.scenario) return admitted;
  const scenario::RouterConfig& router = admitted.scenario->router;
  if (router.impl == scenario::RouterImpl::kCommand && !router.command.empty()) {
    const std::string wanted = canonical_or_same(router.command.front());
    const bool allowed =
        std::any_of(policy.allowed_commands.begin(), policy.allowed_commands.end(),
                    [&](const std::string& a) { return canonical_or_same(a) == wanted; });
    if (!allowed) {
      const auto& where = router.where;
      return {std::nullopt, Refusal::kDenied,
              shown + ":" + std::to_string(where.line) + ":" + std::to_string(where.column) +
                  ": error: [router] command '" + router.command.front() +
                  "' is not allowed by this service (it runs only commands named with "
                  "--allow-command); nothing was started\n"};
    }
  }
  return admitted;
}

std::vector<scenario::Scenario> scenarios_in(const std::string& dir, std::string& problems) {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.is_regular_file() && entry.path().extension() == ".toml") {
      files.push_back(entry.path().string());
    }
  }
  std::sort(files.begin(), files.end());
  std::vector<scenario::Scenario> out;
  for (const auto& file : files) {
    Admission a = from_load(scenario::load_scenario_file(file));
    if (a.scenario) {
      out.push_back(std::move(*a.scenario));
    } else {
      problems += a.message;
    }
  }
  return out;
}

}  // namespace benchgate::serve
