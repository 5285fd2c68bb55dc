// Entry points of the scenario loader: read the file, parse TOML, read each section, and return
// the typed model only when the file has no problem at all.
#include "orchestrator/scenario/scenario_loader.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include <toml++/toml.h>

#include "common/util/regular_file.h"
#include "common/util/shown_text.h"
#include "common/util/toml_depth.h"
#include "orchestrator/scenario/adapter_workloads.h"
#include "orchestrator/scenario/diagnostics.h"
#include "orchestrator/scenario/free_port.h"
#include "orchestrator/scenario/interpolation.h"
#include "orchestrator/scenario/sections.h"
#include "orchestrator/scenario/worker_impls_section.h"

namespace benchgate::scenario {
namespace {

const std::vector<std::string_view> kTopKeys = {"name",     "description",  "fail_fast", "router",
                                                "defaults", "workloads",    "gates",     "routers",
                                                "compare",  "worker_impls", "workers"};
const std::vector<NotYet> kTopNotYet = {};

std::optional<std::string> process_getenv(const std::string& name) {
  const char* value = std::getenv(name.c_str());
  if (!value) return std::nullopt;
  return std::string(value);
}

// The byte offset in `text` of toml++'s 1-based line and column (a column counts characters);
// text.size() past the end.
size_t offset_of(std::string_view text, const toml::source_position& at) {
  size_t i = 0;
  for (toml::source_index line = 1; line < at.line && i < text.size(); ++i) {
    if (text[i] == '\n') ++line;
  }
  for (toml::source_index column = 1; column < at.column && i < text.size(); ++column) {
    ++i;
    while (i < text.size() && (static_cast<unsigned char>(text[i]) & 0xC0) == 0x80) ++i;
  }
  return std::min(i, text.size());
}

bool is_word_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-' || c == '.' || c == '+';
}

// The word of `text` around `offset`: "four" for toml++'s error inside `= four`.
std::string_view word_at(std::string_view text, size_t offset) {
  size_t begin = std::min(offset, text.size());
  size_t end = begin;
  while (begin > 0 && is_word_char(text[begin - 1])) --begin;
  while (end < text.size() && is_word_char(text[end])) ++end;
  return text.substr(begin, end - begin);
}

// A plain explanation of the syntax errors a newcomer makes most, to follow toml++'s own text
// (which speaks of the parser's states: "Error while parsing boolean: expected 'false'" for
// `connections = four`); empty when there is none.
std::string syntax_hint(std::string_view text, const toml::parse_error& e) {
  const std::string_view what = e.description();
  const size_t at = offset_of(text, e.source().begin);
  const char here = at < text.size() ? text[at] : '\n';
  if ((what.starts_with("Error while parsing string: unescaped control characters") ||
       what.starts_with("Error while parsing literal string: control characters")) &&
      (here == '\n' || here == '\r')) {
    return "a string is not closed on this line: end it with the quote it starts with (use "
           "\"\"\"...\"\"\" for a string of several lines)";
  }
  if (what.starts_with("Error while parsing string: encountered end-of-file") ||
      what.starts_with("Error while parsing literal string: encountered end-of-file")) {
    return "a string is not closed before the end of the file";
  }
  if (what.starts_with("Error while parsing key-value pair: expected value")) {
    return "a key needs a value after '='";
  }
  const std::string word = shown_text(word_at(text, at));
  if (word.empty()) return "";  // `= @`: no word to quote
  if (what.starts_with("Error while parsing boolean: expected") ||
      what.starts_with("Error while parsing value: could not determine value type") ||
      what.starts_with("Error while parsing floating-point: expected 'nan'") ||
      what.starts_with("Error while parsing floating-point: expected 'inf'")) {
    return "a bare word is not a TOML value: quote strings (\"" + word +
           "\") or write a number, true or false";
  }
  const bool letter = (here >= 'a' && here <= 'z') || (here >= 'A' && here <= 'Z');
  if (letter && (what.starts_with("Error while parsing decimal integer: expected digit") ||
                 what.starts_with("Error while parsing floating-point: expected decimal digit"))) {
    return "a number with a unit is a string in a scenario: quote it (\"" + word + "\")";
  }
  return "";
}

// The variants a gate may name: "default", or those [compare] names that are defined. When
// [compare] names one that is not (undefined, or a table the loader refused), a gate naming it,
// or a defined router or worker [compare] may have meant, is not reported a second time.
struct CompareVariants {
  std::vector<std::string> defined;
  std::vector<std::string> unchecked;
};

CompareVariants compare_variants(const Scenario& scenario) {
  CompareVariants out;
  const bool routers = !scenario.compare_routers.empty();
  const std::vector<std::string>& compared =
      routers ? scenario.compare_routers : scenario.compare_workers;
  if (compared.empty()) {
    out.defined = {"default"};
    return out;
  }
  auto defined = [&](const std::string& name) {
    return routers ? scenario.routers.count(name) != 0
                   : name == "builtin" || scenario.worker_impls.count(name) != 0;
  };
  for (const std::string& name : compared) {
    (defined(name) ? out.defined : out.unchecked).push_back(name);
  }
  if (out.unchecked.empty()) return out;
  std::vector<std::string> others;
  if (routers) {
    for (const auto& [name, config] : scenario.routers) others.push_back(name);
  } else {
    others.push_back("builtin");
    for (const auto& [name, impl] : scenario.worker_impls) others.push_back(name);
  }
  for (const std::string& name : others) {
    if (std::find(compared.begin(), compared.end(), name) == compared.end()) {
      out.unchecked.push_back(name);
    }
  }
  return out;
}

void read_scenario(TableReader& top, Scenario& scenario, const LoadOptions& options) {
  Diagnostics& diag = top.diagnostics();
  top.check_keys(kTopKeys, kTopNotYet);
  if (!top.has("name")) {
    if (!top.misspelt("name")) {
      diag.error(diag.file_start(), "missing required key 'name' at the top level");
    }
  } else if (auto name = top.string("name")) {
    if (std::string why = name_problem(*name); !why.empty()) {
      diag.error(top.value_location("name"),
                 "key 'name' " + why + ", got '" + shown_text(*name) + "'");
    }
    scenario.name = std::move(*name);
  }
  if (auto description = top.string("description")) scenario.description = std::move(*description);
  if (auto fail_fast = top.boolean("fail_fast")) scenario.fail_fast = *fail_fast;
  scenario.router = read_router(top);
  const WorkloadTemplate defaults = read_defaults(top);
  scenario.workloads = read_workloads(top, defaults);
  read_workers(top, scenario);
  // [compare] workers names [worker_impls] entries, so those are read first.
  const RefusedWorkerImpls refused_impls = read_worker_impls(top, scenario);
  read_comparison(top, scenario, refused_impls);
  check_workload_workers(scenario, refused_impls, diag);
  check_router_tls(scenario, diag);
  // What an adapter a workload uses cannot run, refused now rather than when it starts.
  check_adapter_workloads(top, scenario);
  bool named = top.has("workloads");
  for (const Workload& w : scenario.workloads) named = named && !w.name.empty();
  const CompareVariants variants = compare_variants(scenario);
  scenario.gates =
      read_gates(top, scenario.workloads, variants.defined, variants.unchecked, named,
                 !scenario.compare_workers.empty() || !scenario.compare_routers.empty(), scenario,
                 options.keep_refused_gates);
  check_comparison_repetitions(top, scenario, options.keep_refused_gates);
}

// The workloads a [[workloads]] table runs as: one, or one per value of its sweep (the sweep's
// own rules are checked when the table is read).
size_t workloads_of(const toml::node& element) {
  const toml::table* table = element.as_table();
  const toml::table* sweep = table ? table->get_as<toml::table>("sweep") : nullptr;
  if (!sweep || sweep->size() != 1) return 1;
  const toml::array* values = sweep->begin()->second.as_array();
  return values && values->size() > 1 ? values->size() : 1;
}

// LoadOptions::max_workloads and max_gates, on the parsed text: at the table that goes past the
// bound.
void check_counts(const toml::table& root, const LoadOptions& options, Diagnostics& diag) {
  const auto over = [&](const toml::node& at, const std::string& what, size_t count, size_t bound) {
    diag.error(at.source(), "the scenario has " + std::to_string(count) + " " + what +
                                "; a scenario submitted to `orchestrator serve` may have at most " +
                                std::to_string(bound) + " (nothing else in it was checked)");
  };
  if (const toml::array* workloads = root.get_as<toml::array>("workloads");
      workloads && options.max_workloads > 0) {
    size_t count = 0;
    const toml::node* first_over = nullptr;
    for (const toml::node& element : *workloads) {
      count += workloads_of(element);
      if (!first_over && count > options.max_workloads) first_over = &element;
    }
    if (first_over) {
      over(*first_over, "workloads (each value of a sweep counted as one)", count,
           options.max_workloads);
    }
  }
  if (const toml::array* gates = root.get_as<toml::array>("gates");
      gates && options.max_gates > 0 && gates->size() > options.max_gates) {
    over(*gates->get(options.max_gates), "[[gates]] tables", gates->size(), options.max_gates);
  }
}

}  // namespace

LoadResult load_scenario_text(std::string_view text, const std::string& path,
                              const LoadOptions& options) {
  LoadResult result;
  Diagnostics diag(path);
  toml::table root;
  // A key of tens of thousands of dotted parts overflows the stack inside toml++: refused first.
  if (auto deep = toml_depth_problem(text)) {
    diag.error(
        Location{path, static_cast<uint32_t>(deep->line), static_cast<uint32_t>(deep->column)},
        std::move(deep->message));
    result.diagnostics = diag.take();
    return result;
  }
  try {
    root = toml::parse(text, path);
  } catch (const toml::parse_error& e) {
    // toml++ stops at the first syntax error; nothing after it can be trusted.
    // toml++ writes a character it did not expect into its message as it is: a C1 control, a
    // bidi override.
    std::string message = "TOML syntax error: " + shown_text(e.description());
    if (std::string hint = syntax_hint(text, e); !hint.empty()) message += "; " + hint;
    diag.error(e.source(), std::move(message));
    result.diagnostics = diag.take();
    return result;
  }
  check_counts(root, options, diag);
  if (!diag.empty()) {
    result.diagnostics = diag.take();
    return result;
  }

  Interpolator interpolator(
      scenario_dir_of(path), options.getenv ? options.getenv : EnvLookup(process_getenv),
      options.allocate_port ? options.allocate_port : PortAllocator(allocate_loopback_port),
      options.submitted);
  Scenario scenario;
  scenario.path = path;
  scenario.text = std::string(text);
  TableReader top(root, "at the top level", diag, interpolator);
  read_scenario(top, scenario, options);
  scenario.ports = interpolator.ports();

  result.diagnostics = diag.take();
  if (result.diagnostics.empty()) result.scenario = std::move(scenario);
  return result;
}

LoadResult load_scenario_text(std::string_view text, const std::string& path) {
  return load_scenario_text(text, path, LoadOptions{});
}

namespace {

// The file's text: a pipe's too, unless the options ask for a regular file only.
Expected<ReadText> file_text(const std::string& path, const LoadOptions& options) {
  if (!options.regular_file_only) {
    return read_file_or_pipe(path, "", kMaxScenarioFileBytes, options.pipe_idle_timeout,
                             options.stop_requested);
  }
  auto text = read_regular_file(path, "", kMaxScenarioFileBytes);
  if (!text) return text.error();
  return ReadText{std::move(*text), false};
}

}  // namespace

LoadResult load_scenario_file(const std::string& path, const LoadOptions& options) {
  std::error_code ec;
  // A folder is refused by name: read as a file it would be an empty scenario, reported as
  // one without workloads. `run` and `validate` both load through here, so both say this.
  if (std::filesystem::is_directory(path, ec)) {
    LoadResult result;
    const std::string files = (std::filesystem::path(path) / "*.toml").string();
    result.diagnostics.push_back(
        Diagnostic{Location{path, 0, 0},
                   "is a folder, not a scenario file (give the files in it, e.g. " + files + ")"});
    return result;
  }
  // A pipe (`<(generate)`, /dev/stdin) is read once, to its end, within the idle timeout; a
  // device is refused before it is read (/dev/zero never ends), and so is a file too large to
  // be a scenario.
  auto read = file_text(path, options);
  if (!read) {
    LoadResult result;
    // Not a regular file, too large, a stalled pipe, or Ctrl-C while it waited: said as it is.
    // Otherwise it could not be opened.
    std::string why = read.error().message;
    const ErrorKind kind = read.error().kind;
    if (kind != ErrorKind::kInvalidInput && kind != ErrorKind::kInterrupted) {
      why = std::filesystem::exists(path, ec) ? "cannot read the scenario file: " + why
                                              : "no such scenario file";
    }
    result.diagnostics.push_back(Diagnostic{Location{path, 0, 0}, why});
    result.interrupted = kind == ErrorKind::kInterrupted;
    return result;
  }
  return load_scenario_text(read->text, path, options);
}

LoadResult load_scenario_file(const std::string& path) {
  return load_scenario_file(path, LoadOptions{});
}

}  // namespace benchgate::scenario
