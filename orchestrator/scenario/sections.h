// Reading each section of a scenario file ([router], [defaults], [[workloads]], [[gates]]) into
// the typed model. Each reader records its problems and returns what it could read.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "orchestrator/scenario/scenario.h"
#include "orchestrator/scenario/table_reader.h"

namespace benchgate::scenario {

// Where a workload field got its value, so that a check across fields points at the key to
// change, whether it sits in the workload or in [defaults].
struct Origin {
  Location where;
  bool in_workload = false;
};

struct WorkloadTemplate {
  Workload values;                                    // the model defaults with [defaults] applied
  std::map<std::string, Origin, std::less<>> set_at;  // fields [defaults] sets
  std::set<std::string, std::less<>> broken;          // fields whose [defaults] value was invalid
};

// Router keys docs/SCENARIOS.md names that no router here serves yet.
inline const std::vector<NotYet> kRouterNotYet = {};

// [router] tls = true (or a [routers.NAME] with it): every workload must speak TLS to it.
void check_router_tls(const Scenario& scenario, Diagnostics& diag);

// [router]; the bundled router when absent.
RouterConfig read_router(TableReader& top);

// The keys of one router table (after check_keys); `section` names it in messages ("[router]").
RouterConfig read_router_table(TableReader& r, const std::string& section);
// WAMP authentication (wamp_auth_section.cc): a workload's `auth`, [router] auth_config.
void read_wamp_auth(TableReader& workload, WampRequest& wamp);
void read_router_auth_config(TableReader& r, RouterConfig& router, bool builtin);

struct RefusedWorkerImpls;  // worker_impls_section.h

// [routers.NAME] and [compare]: the router variants and the comparison over them or over the
// worker implementations ([worker_impls] must be read before; a compared worker that names an
// entry it refused is not reported again).
void read_comparison(TableReader& top, Scenario& scenario, const RefusedWorkerImpls& refused);

// A comparison's repetitions, once its gates are read, at the `repetitions` value (in the
// workload or [defaults]): an even number (A B, B A, ...), and at least as many pairs as each
// paired gate's signed-rank test on the workload needs to be significant at its alpha at all.
// Too few pairs fail the load once per workload, naming the gate that needs the most;
// `keep_refused`: every such gate is refused instead (Gate::refused), not the load.
void check_comparison_repetitions(TableReader& top, Scenario& scenario, bool keep_refused);

// `sweep = { request_bytes = [...] }` (or connections) of a workload: the workloads it expands
// into, named NAME@PARAMETER=VALUE, or {w} when the workload has no sweep.
std::vector<Workload> expand_sweep(TableReader& r, const Workload& w);

// Why `bytes` cannot be the payload of this WAMP workload (too large for WAMP here, or for one
// RawSocket message in its serialization), or nothing when it can, worded to follow "key 'KEY' "
// and quoting `shown`, the size as written (size_text). Shared by request_bytes, chunk_bytes and
// sweep = { request_bytes = [...] }.
std::optional<std::string> wamp_payload_problem(const WampRequest& wamp, uint64_t bytes,
                                                const std::string& shown);

// The sessions each worker opens beside its connections: wamp_rpc's callee sessions (callee =
// "worker"), 0 otherwise.
uint32_t worker_callee_sessions(const Workload& w);

// The bundled worker's limits across keys (common/workload/workload_limits.h), each the problem
// to report or nothing; shared by a workload's keys and its sweep. `connections` split over
// `workers`, with `callee_sessions` on each worker, must fit one worker's sessions; `rate` over
// `connections` (wamp_pubsub: its publishers) must be a rate per connection the worker
// schedules; an HTTP request body times in_flight must fit the worker's pipeline buffer.
std::optional<std::string> connections_problem(uint64_t connections, uint32_t workers,
                                               uint32_t callee_sessions);
std::optional<std::string> rate_problem(double rate, uint64_t connections, bool publishers);
// Why workload `w` runs closed loop whatever its rate, and the key that asks for it (its
// protocol, wamp_transfer: one transfer at a time per session; wamp_rpc's
// session_per_operation: every call on a session of its own), or nothing. Shared by a
// workload's own rate and in_flight and by a sweep over rate.
struct ClosedLoopOnly {
  std::string_view key;
  std::string_view why;  // "wamp_transfer runs one transfer at a time per session, closed loop"
};
std::optional<ClosedLoopOnly> closed_loop_only(const Workload& w);
// An open loop's rule of in_flight, worded to follow "rate " or "sweep parameter 'rate' ":
// "(open loop) needs in_flight = 1, got in_flight = 4: ...", or nothing when it is 1.
std::optional<std::string> open_loop_in_flight_problem(uint32_t in_flight);
// `shown`: request_bytes as written (size_text).
std::optional<std::string> pipelined_body_problem(uint64_t request_bytes, uint32_t in_flight,
                                                  const std::string& shown);

// The TLS keys of an HTTP workload and the HTTP/2 keys (tls_section.cc): every key name, and
// the reader of a workload's (after its protocol is known).
const std::vector<std::string_view>& tls_and_http2_keys();
void read_tls_and_http2(TableReader& r, Workload& w);

// [workers] (workers_section.cc): the remote workers, checked as written; then fills in
// [workers]'s on_worker_loss in every workload that does not set one (read after the workloads).
void read_workers(TableReader& top, Scenario& scenario);
// `on_worker_loss` of a [workers], [defaults] or workload table: "fail" or "continue".
std::optional<WorkerLoss> read_worker_loss(TableReader& r);

// [defaults]; the model's defaults when absent.
WorkloadTemplate read_defaults(TableReader& top);

// [[workloads]], each starting from the template. At least one is required.
std::vector<Workload> read_workloads(TableReader& top, const WorkloadTemplate& defaults);

// [[gates]], each checked against the workloads read and the variants they run as ("default",
// or the compared routers' or workers' names [compare] defines): names and globs must match
// one, and a misspelt one is told the closest of them. `unchecked`: names a gate's `variant` or
// `against` may give without an error of its own, since [compare] was refused at one of its
// entries (an undefined or refused router or worker, and those it may have meant to name).
// `compared`: the scenario has a [compare] table (its variants are measured alternately);
// `scenario`: what else was read (the workers, adapters and systems under test that run the
// workloads: a gate on a figure none of them measures is refused).
// `keep_refused` (LoadOptions::keep_refused_gates): a gate's problems are its Gate::refused,
// not the load's.
std::vector<Gate> read_gates(TableReader& top, const std::vector<Workload>& workloads,
                             const std::vector<std::string>& variants,
                             const std::vector<std::string>& unchecked, bool workloads_complete,
                             bool compared, const Scenario& scenario, bool keep_refused);

// The `kind` key of a [[gates]] table (change_gate_section.cc). For kind = "change" reads the
// change gate's keys into `gate` and returns true (the caller reads no bound); otherwise checks
// that an explicit kind agrees with the gate's keys and returns false. `compared`: as for
// read_gates (a confirming rerun of one variant alone is refused).
bool read_gate_kind(TableReader& r, Gate& gate, bool compared);
// The metrics a change gate can name.
std::span<const std::string_view> change_gate_metrics();

// Why a scenario, workload, router or worker name cannot be one, or "": it must fit
// [a-z0-9_.-]+ and be neither "." nor ".." (names end up in file and folder names and keys).
// Said after "key 'name' " or "worker name 'x' ": "must match [a-z0-9_.-]+".
std::string name_problem(std::string_view name);

}  // namespace benchgate::scenario
