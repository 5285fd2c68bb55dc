// What `serve` accepts: a scenario by name from its own folder (trusted: the operator put it
// there), or a scenario sent by a client, which may start only the programs the operator
// allowed (--allow-command), reach only the addresses it allowed (--allow-address) or ports
// the scenario allocated itself, and read nothing of the service's machine (no ${env:NAME},
// no ${scenario_dir}). Everything is validated before a job is queued (README "Security").
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/util/expected.h"
#include "orchestrator/scenario/scenario.h"
#include "orchestrator/scenario/scenario_loader.h"

namespace benchgate::serve {

// serve --max-run-seconds when not given: an hour.
inline constexpr int64_t kDefaultMaxRunNs = 3600LL * 1'000'000'000;
// serve --max-processes when not given: the most processes a submitted scenario's run may have
// running at once on the service's machine (run_bound.h, processes_at_once). Every scenario of
// the project fits it (run_bound_test.cc checks each file of scenarios/; compare_workers.toml,
// a router, a bundled worker and two adapters' workers with their tools, has 6); a workload of
// 64 local workers is past what one machine loads usefully, while the loader's own limits let
// one scenario start thousands.
inline constexpr size_t kDefaultMaxProcesses = 64;

// What one submitted scenario may hold: its workloads (each value of a sweep counted as one)
// and its [[gates]] tables. The largest scenarios of the project hold 12 workloads and 4
// gates; these bounds are far above any real one, and keep what a request thread spends on a
// client's scenario bounded: every gate's glob is matched against every workload (at most
// 1,000 x 1,000 matches, a fraction of a second; 16,000 x 16,000 took 16 s). Counted on the
// parsed TOML before the scenario is checked, refused as kInvalid naming the count and the
// bound (README "Security").
inline constexpr size_t kMaxSubmittedWorkloads = 1000;
inline constexpr size_t kMaxSubmittedGates = 1000;
// The largest scenario text a client may submit (refused as kInvalid past it, naming both
// sizes). A scenario of the largest a submission may hold, 1,000 workloads and 1,000 gates,
// written out with headers, bodies and severities, is 297 KB (the project's largest file is
// 3.4 KB); the loader's own bound, 4 MiB (kMaxScenarioFileBytes), let a client have the
// service receive and validate 4 MiB, about a second and 170 MB of memory, per submission. A
// larger file runs from the --scenarios folder or with a local `run`.
inline constexpr size_t kMaxSubmittedScenarioBytes = size_t{1} << 20;
// The largest request `serve` receives (its gRPC server's receive limit, for every method): the
// largest scenario text with the rest of a Submit request, whose file name (4 KiB), labels (64
// of at most 1,152 bytes), commit and branch (256 bytes each; job.h) fit far below the 256 KiB
// added. A larger request is refused by gRPC before it is read whole (RESOURCE_EXHAUSTED,
// "Received message larger than max"), which `run --server` explains.
inline constexpr size_t kMaxSubmitRequestBytes = kMaxSubmittedScenarioBytes + (256 << 10);

// An adapter's tool as `serve` resolved it when it started (resolve_adapter_programs).
struct AdapterProgram {
  std::string path;      // absolute, its folder's symlinks resolved
  bool allowed = false;  // an --allow-command entry named this file then
  bool operator==(const AdapterProgram&) const = default;
};

struct AdmissionPolicy {
  std::string scenarios_dir;
  std::vector<std::string> allowed_commands;   // executables a submitted scenario may spawn
  std::vector<std::string> allowed_addresses;  // HOST:PORT a submitted scenario may reach
  // The service's --workers-at entries. A submitted scenario's [workers] at may only repeat
  // some of them (the service's own flag then decides which workers run it anyway); any other
  // entry would make the service connect wherever the client says.
  std::vector<std::string> worker_addresses;
  // serve --max-run-seconds: the longest a submitted scenario's run may take by its own
  // timeouts (run_bound.h); one that may take longer is refused.
  int64_t max_run_ns = kDefaultMaxRunNs;
  // serve --max-processes: the most processes a submitted scenario's run may have running at
  // once (run_bound.h); one that would have more is refused.
  size_t max_processes = kDefaultMaxProcesses;
  // serve --max-queued, as its job queue was given it: the most runs that ever wait at once.
  // A client that asks room for more together (`run --server` with more files) is refused as
  // a mistake of its request (INVALID_ARGUMENT), not told to try again later as for a queue
  // that is full now. Without it, only the queue's own check applies.
  size_t max_queued = std::numeric_limits<size_t>::max();
  // serve --allow-promote: the baselines a client may add its run to (a Submit's `promote`).
  // A baseline is what relative gates judge against, the operator's scheduled runs' and the
  // --scenarios folder's included, so no client moves one the operator did not name; empty:
  // every Submit that asks to promote is refused (promotion_refusal).
  std::vector<std::string> allowed_promotions;
  // The service's own listeners (flag, HOST:PORT as bound: --listen, --metrics-listen, --http;
  // one given port 0 has the kernel's port here, which serve reads back as each starts).
  // A submitted scenario's router may not listen on one of their ports, nor its load, probes
  // and scrapes reach one (app/router_port_clash.h): --allow-address could name it, which
  // ${port:NAME} never allocates (a port in use).
  std::vector<std::pair<const char*, std::string>> own_listeners;
  // Each adapter's tool as the service resolved it when it started (resolve_adapter_programs):
  // a submitted scenario's adapter is allowed when an --allow-command entry named that file then.
  std::map<std::string, AdapterProgram> adapter_programs;
};

enum class Refusal { kNone, kNotFound, kInvalid, kDenied };

struct Admission {
  std::optional<scenario::Scenario> scenario;
  Refusal refusal = Refusal::kNone;
  std::string message;  // why it was refused: diagnostics, one per line
};

// "quickstart" or "quickstart.toml" in the scenarios folder. Its diagnostics and the
// scenario's locations and `path` name the file as the client does ("quickstart.toml"),
// never the service's folder, in any of its spellings (folder_spellings, client_paths.h). A
// name longer than kMaxFileNameBytes is refused (kInvalid) without being quoted; one that is
// not found is quoted escaped (shown_text).
Admission admit_by_name(const std::string& name, const AdmissionPolicy& policy);
// A client's file: its name (for diagnostics) and text. A name longer than
// kMaxFileNameBytes or that does not print as itself (prints_as_itself, the rule of a commit and
// a label: no control character, C1 and bidi controls included, and nothing but UTF-8) is
// refused, and so is a scenario whose
// timeouts let it run longer than max_run_ns, or whose run would have more than max_processes
// processes running at once (run_bound.h), or that holds more than kMaxSubmittedWorkloads
// workloads or kMaxSubmittedGates gates.
inline constexpr size_t kMaxFileNameBytes = 4096;  // PATH_MAX
Admission admit_content(const std::string& file_name, const std::string& text,
                        const AdmissionPolicy& policy);
// Every *.toml file of the folder, in name order (for --every), named by its file name as
// admit_by_name names it (its jobs' output is a client's too); invalid files are skipped with
// their diagnostics, full paths and all, in `problems` (the service's log).
std::vector<scenario::Scenario> scenarios_in(const std::string& dir, std::string& problems);
// Two files of `scenarios` (scenarios_in's) whose `name` is one: --every would run them as one
// scenario, their runs one history and one set of series. "" when every name is its file's own;
// else one line naming the first such pair's files and the name (`serve --every` refuses to
// start).
std::string files_with_one_name(const std::vector<scenario::Scenario>& scenarios);

// Something of the service's machine a scenario uses: a program it starts or an address its
// load, probes or scrapes reach. `what` names the key ("[worker_impls.py] command").
struct Reach {
  std::string value;  // the program as written, or HOST:PORT (a metrics URL's as it connects)
  std::string what;
  scenario::Location where;
  // A metrics URL's HOST:PORT as the URL writes it ("localhost:9113"; port 80 added where it
  // names none), where that differs from `value` ("127.0.0.1:9113"): --allow-address may name
  // either.
  std::string written = {};
  // An adapter's tool ("h2load", "wrk"), which the service runs as it resolved it when it
  // started (AdmissionPolicy::adapter_programs), not as PATH finds `value` now.
  bool adapter_tool = false;
};

// A new scenario key that starts a program, reaches an address or names a file belongs in the
// two lists below; tests/unit/orchestrator/serve/admission_test.cc fails for every key of
// schemas/scenario.schema.json nobody has reviewed.
//
// Every program the scenario can start besides the bundled router and worker: [router] and
// [routers.NAME] commands, [worker_impls.NAME] commands, and the tool an adapter runs; and the
// programs [routers.NAME] requires looks up.
std::vector<Reach> programs_started(const scenario::Scenario& scenario);

// Every address the orchestrator or its workers connect to for the scenario besides the
// bundled router: the address, readiness probe and metrics endpoint of [router] and of each
// [routers.NAME].
std::vector<Reach> addresses_reached(const scenario::Scenario& scenario);

// The one check of a program against --allow-command: both sides are resolved as the spawner
// resolves them (a bare name on PATH), then their folders through symlinks, "." and ".." (the
// program's own name is kept: the names of a multi-call binary are programs of their own).
bool command_allowed(const std::string& program, const std::vector<std::string>& allowed);

// Each adapter's tool ("h2load", "wrk") as `serve` resolves it once, as it starts, so that what
// a job runs, and whether a client may run it, do not depend on what PATH finds when the job
// is submitted or starts: the file an --allow-command entry of that name resolves to (allowed:
// the operator named that one, on PATH or not), else the one the service's PATH finds now (for
// the service's own scenarios; not allowed); a tool neither names is absent. Two entries of
// one name that are two files are an error naming both.
Expected<std::map<std::string, AdapterProgram>> resolve_adapter_programs(
    const std::vector<std::string>& allowed);

// Rewrites the program of every command a run of the scenario spawns ([router] and
// [routers.NAME] `command`, [worker_impls.NAME] `command`) to the file command_allowed compared:
// found on PATH if a bare name, its folder resolved through symlinks, "." and "..", the name
// kept (an absolute path where the program was found). admit_content does it to every scenario
// it admits, so the job spawns the file that was checked, whatever a client's symlinks, a
// /proc/PID/cwd or the service's PATH name by the time the job starts.
void pin_programs(scenario::Scenario& scenario);

// Checked again as a submitted job starts (orchestrator/serve/run_executor.cc): why a program
// pin_programs rewrote no longer names the file that was admitted (its folder is reached
// through a symlink now) or is no longer one --allow-command allows (`allowed` resolves to
// other files now), naming the key ("[router] command '/usr/bin/sleep' was allowed ..."), for
// the first such program; nothing when all still are.
std::optional<std::string> program_changed_since_admitted(const scenario::Scenario& scenario,
                                                          const std::vector<std::string>& allowed);

// An address is allowed when --allow-address names it exactly, or when it is on loopback at
// a port the scenario allocated with ${port:NAME} (free when allocated, so the system under
// test the scenario starts listens there, not a service of the machine). A metrics URL is
// allowed too where --allow-address names its HOST:PORT as written (Reach::written).
bool address_allowed(const std::string& address, const scenario::Scenario& scenario,
                     const std::vector<std::string>& allowed);

// The entries of the scenario's [workers] at that the service's --workers-at does not name.
std::vector<std::string> workers_not_allowed(const scenario::Scenario& scenario,
                                             const std::vector<std::string>& worker_addresses);

// Why a submission may not add its run to the baseline `promote` (a Submit's field, checked
// before anything is queued): "" when it asks for none or --allow-promote names it; else one
// line naming the baseline, the ones allowed (or that none is) and the flag that allows one.
// `field`: the request's field that asked ("promote", "deferred_promote", Promote's "baseline").
std::string promotion_refusal(const std::string& promote, const std::vector<std::string>& allowed,
                              const std::string& field = "promote");

// Every program and address of `scenario` the policy does not allow, and a router port of its
// on one of the service's own listeners, one "file:line:column: error: ..." line each; empty
// when the scenario is admitted.
std::string policy_violations(const scenario::Scenario& scenario, const AdmissionPolicy& policy);

}  // namespace benchgate::serve
