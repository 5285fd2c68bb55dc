#include "orchestrator/engine/workload_runner.h"

#include <algorithm>
#include <map>
#include <thread>

#include "common/time/clock.h"
#include "orchestrator/app/interrupt.h"
#include "orchestrator/engine/load_origin.h"
#include "orchestrator/engine/load_split.h"
#include "orchestrator/engine/sessions_ended.h"
#include "orchestrator/engine/start_sync.h"
#include "orchestrator/engine/timeline.h"
#include "orchestrator/engine/window_merge.h"
#include "orchestrator/grpc/channel.h"
#include "orchestrator/results/nothing_succeeded.h"
#include "orchestrator/results/router_count.h"
#include "orchestrator/workers/describe_rules.h"
#include "orchestrator/workers/result_checks.h"
#include "orchestrator/workers/worker_streams.h"

namespace benchgate::engine {
namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

// Time between sending a window command and its start instant: enough for every worker to
// receive the command, short enough not to matter.
constexpr int64_t kStartLeadNs = 100'000'000;
// How long a worker that takes part in the clock exchange may take to answer one probe.
constexpr auto kClockReplyTimeout = 5s;
// The drain time worker_spec() gives every worker after a window's load stops.
constexpr int64_t kDrainNs = 5'000'000'000;
// Beyond the window and its drain, how long a worker may take to send its result.
constexpr auto kResultSlack = 5s;
// How long the workers may take to end their streams after the workload (README, "Failure
// behaviour"); a stream still open then is cancelled.
constexpr auto kCloseGrace = 2s;
// A worker's stream breaks a moment before its process can be reaped: how long to wait for
// the process to show why it ended.
constexpr auto kDeathNotice = 1s;
// A stream the worker ended itself, saying so (common/workload/run_stream_end.h), came from a
// live worker: its death is not waited for. Only the system under test may still explain it, a
// connect refused because the system is exiting. An exiting process closes its sockets in exit
// and is reapable right after, so by the time the refusal has reached the worker and its status
// has come back here, such a system is gone or moments from it: 10 looks 20 ms apart (200 ms
// and more) leave a loaded machine's scheduling room, and spare the workload most of
// kDeathNotice.
constexpr int kWorkerEndLooks = 10;
constexpr auto kEndLookPause = 20ms;
// How often a running window looks at every child's state. A stop between two looks is not
// missed (waitpid keeps it until collected); this only bounds how late it is logged, and how
// late a window notices that the system under test exited.
constexpr auto kStopWatch = 50ms;

class WorkloadRun {
 public:
  WorkloadRun(const scenario::Workload& workload, WorkloadEnvironment& env)
      : workload_(workload),
        env_(env),
        deadline_(Clock::now() + std::chrono::nanoseconds(workload.timeout_ns)) {
    result_.spec = workload;
    result_.status = results::WorkloadStatus::kOk;
  }

  results::WorkloadResult run() {
    auto outcome = run_windows();
    if (!outcome) {
      fail(with_address_hint(outcome.error()));
    } else if (!env_.one_window_of_many) {
      // A verdict on windows that all completed: failed, even where a Ctrl-C came after the
      // last of them (fail() would call the workload interrupted then).
      if (std::string why = results::nothing_succeeded_reason(result_); !why.empty()) {
        result_.status = results::WorkloadStatus::kFailed;
        result_.error = std::move(why);
      }
    }
    streams_.close(kCloseGrace);
    result_.merge_latency();
    return std::move(result_);
  }

 private:
  void fail(const Error& why) {
    // An interrupt is not a failure of the workload (README, "Failure behaviour").
    result_.status = why.kind == ErrorKind::kInterrupted || app::interrupted()
                         ? results::WorkloadStatus::kInterrupted
                         : results::WorkloadStatus::kFailed;
    result_.error = why.text();
  }

  // A WAMP workload that could not connect to a command's or external system's one address,
  // where the scenario names no address for its transport: the error says which key would.
  Error with_address_hint(const Error& why) const {
    if (scenario::is_http(workload_.protocol) || target_.empty()) return why;
    const std::string hint = env_.sut.wamp_address_hint(workload_.wamp.transport);
    if (hint.empty() || why.text().find("cannot connect to " + target_) == std::string::npos) {
      return why;
    }
    std::string detail;
    for (const Error* e = &why; e != nullptr && detail.empty(); e = e->cause.get()) {
      detail = e->detail;
    }
    return Error{why.headline() + " (" + hint + ")", why.kind, detail};
  }

  // Why a stream ended, with what the process says about itself when it is gone.
  Error explain_end(const workers::StreamEvent& end) {
    if (app::interrupted()) return interrupted_error();
    if (end.ended_by_worker) return explain_worker_end(end);
    const auto until = Clock::now() + kDeathNotice;
    do {
      if (auto death = env_.pool.failure(end.worker)) return *death;
      // The worker may have ended the stream because the system under test died.
      if (auto sut = env_.sut.failure()) return *sut;
      if (end.status.ok()) break;  // a worker that closed its stream cleanly is not dying
      std::this_thread::sleep_for(kEndLookPause);
    } while (Clock::now() < until);
    return worker_said(end);
  }

  // A stream its worker ended, marked as its own: the worker is not waited for (it was alive to
  // mark it), the system under test only kWorkerEndLooks times.
  Error explain_worker_end(const workers::StreamEvent& end) {
    for (int look = 0; look < kWorkerEndLooks; ++look) {
      if (look > 0) std::this_thread::sleep_for(kEndLookPause);
      if (auto sut = env_.sut.failure()) return *sut;
      if (end.status.ok()) break;
    }
    return worker_said(end);
  }

  Error worker_said(const workers::StreamEvent& end) const {
    return Error{env_.pool.name(end.worker) +
                 " ended its stream: " + grpcutil::describe(end.status)};
  }

  // A job of `serve` cancelled by its client has no signal: say so rather than "signal 0".
  static Error interrupted_error() {
    return Error{app::interrupt_description(), ErrorKind::kInterrupted};
  }

  // `silent`: the workers that have not answered yet, named when nothing else explains it.
  Error explain_timeout(const std::string& waiting_for, const std::vector<size_t>& silent = {}) {
    if (app::interrupted()) return interrupted_error();
    for (size_t w = 0; w < streams_.size(); ++w) {
      if (lost_[w]) continue;  // lost before: not the cause of this wait
      if (auto death = env_.pool.failure(w)) return *death;
    }
    if (auto sut = env_.sut.failure()) return *sut;
    std::string who;
    for (size_t w : silent) who += (who.empty() ? " from worker " : ", ") + std::to_string(w);
    if (Clock::now() >= deadline_) {
      return Error{"workload timeout (" + std::to_string(workload_.timeout_ns / 1'000'000) +
                   " ms) passed while waiting for " + waiting_for + who};
    }
    return Error{"no answer while waiting for " + waiting_for + who};
  }

  // A control call to the system under test failed: a dead or frozen system says more.
  Error sut_error(const Error& error) {
    if (auto sut = env_.sut.failure()) return *sut;
    return error;
  }

  Expected<void> run_windows() {
    const auto shares = split_load(workload_);
    // Who the workers say they are, stored with the workload (a refused one too).
    const workers::DescribedAs described = workers::described_as(env_.pool, shares.size());
    result_.worker_name = described.name;
    result_.worker_version = described.version;
    // What the workers' Describe does not list is refused before any stream opens.
    if (auto refused = workers::refuse_unserved(env_.pool, shares.size(), workload_)) {
      return *refused;
    }
    const auto expectation = expected_response(workload_, env_.bundled_router);
    auto address = target_address(workload_, env_.sut);
    if (!address) return address.error();
    target_ = *address;
    lost_.assign(shares.size(), false);
    results_taken_.assign(shares.size(), {});
    std::vector<std::string> addresses;
    for (size_t w = 0; w < shares.size(); ++w) {
      auto spec = worker_spec(workload_, shares[w], *address, expectation);
      use_system_ca(env_.sut, spec);
      asked_connections_.push_back(spec.connections());
      streams_.open(w, env_.pool.stub(w), spec);
      addresses.push_back(env_.pool.address(w));
      hosts_.push_back(worker_host(addresses.back()));
    }
    result_.load_from = load_from(addresses);
    clock_exchange_.assign(shares.size(), false);
    auto ready = wait_ready();
    if (!ready) return ready;

    uint32_t window_index = 0;
    if (workload_.warmup_ns > 0) {
      WindowInfo info{false, 0, workload_.repetitions, workload_.warmup_ns};
      auto warm = run_window(window_index++, info);
      if (!warm) return warm.error();
    }
    for (uint32_t rep = 1; rep <= workload_.repetitions; ++rep) {
      WindowInfo info{true, rep, workload_.repetitions, workload_.duration_ns};
      auto measured = run_window(window_index++, info);
      if (!measured) return measured.error();
      result_.repetitions.push_back(std::move(measured).value());
      if (auto nothing = measured_nothing(result_.repetitions.back())) return *nothing;
    }
    return {};
  }

  // A measured window in which no operation completed and nothing failed measured nothing: it
  // has no throughput, no latency and no error to show, and stored as ok it would read as a
  // quiet success (docs/MEASUREMENT.md "Operations, successes and errors"). The workload
  // fails, saying so; the repetition is kept as it came. A window of errors only is reported
  // by its errors, and fails the workload once every window was so (nothing_succeeded.h).
  std::optional<Error> measured_nothing(const results::Repetition& rep) const {
    if (rep.operations > 0) return std::nullopt;
    for (const auto& [kind, count] : rep.errors) {
      if (count > 0) return std::nullopt;
    }
    return Error{"repetition " + std::to_string(rep.index + 1) +
                 " measured nothing: the workers completed no operation in the window and none "
                 "failed"};
  }

  Expected<void> wait_ready() {
    std::vector<bool> is_ready(streams_.size(), false);
    std::vector<uint32_t> threads(streams_.size(), 0);
    size_t ready = 0;
    while (ready < streams_.size()) {
      auto event = streams_.next(deadline_);
      if (!event) return explain_timeout("the workers to be ready", missing(is_ready));
      if (!event->event) return explain_end(*event);
      if (event->event->has_ready() && !is_ready[event->worker]) {
        // A worker that counts fewer connections than it was given would load the system
        // with fewer than the scenario asked for (workers/result_checks.h check_ready).
        if (std::string problem =
                workers::check_ready(event->event->ready(), asked_connections_[event->worker]);
            !problem.empty()) {
          return Error{"worker " + std::to_string(event->worker) +
                       " sent a malformed ready: " + problem};
        }
        is_ready[event->worker] = true;
        clock_exchange_[event->worker] = event->event->ready().clock_exchange();
        threads[event->worker] = event->event->ready().threads();
        ++ready;
      }
    }
    result_.worker_threads = std::move(threads);
    return {};
  }

  // Before window `index`, the NTP-style exchange with every worker that takes part
  // (engine/start_sync.h): rounds of one probe per worker, until kClockRounds or the time
  // budget; a worker that does not take part gets nullopt (its offset is not measured). A
  // worker whose stream ends meanwhile is lost as in a window under on_worker_loss =
  // "continue"; otherwise that is the window's failure.
  Expected<std::vector<std::optional<ClockEstimate>>> measure_clocks(uint32_t index,
                                                                     const WindowInfo& info) {
    std::vector<std::vector<ClockSample>> samples(streams_.size());
    std::vector<std::optional<ClockEstimate>> out(streams_.size());
    const bool any =
        std::find(clock_exchange_.begin(), clock_exchange_.end(), true) != clock_exchange_.end();
    if (!any) return out;
    // A stream's end: the failure, or nothing once its worker is lost.
    auto ended = [&](const workers::StreamEvent& end) -> std::optional<Error> {
      Error why = explain_end(end);
      if (!may_continue(why)) return why;
      lose_worker(end.worker, why, index, info);
      return every_worker_lost(why);
    };
    const int64_t began = steady_now_ns();
    for (int round = 0; round < kClockRounds; ++round) {
      if (round > 0 && steady_now_ns() - began > kClockExchangeBudgetNs) break;
      const uint32_t sequence = ++probe_sequence_;
      std::vector<int64_t> sent(streams_.size(), 0);
      std::vector<bool> answered(streams_.size(), true);
      size_t waiting = 0;
      for (size_t w = 0; w < streams_.size(); ++w) {
        if (!clock_exchange_[w] || lost_[w]) continue;  // a lost worker is not asked
        if (!streams_.send_probe(w, sequence, sent[w])) {
          // Under "continue" its stream's end comes with the replies below (or to the window,
          // when no reply is awaited), where it is lost like any other.
          if (continues_on_loss()) continue;
          auto event = streams_.next(Clock::now() + 1s);
          if (event && !event->event) return explain_end(*event);
          return explain_timeout("worker " + std::to_string(w) + " to accept a clock probe");
        }
        answered[w] = false;
        ++waiting;
      }
      const auto until = std::min(deadline_, Clock::now() + kClockReplyTimeout);
      size_t replied = 0;
      while (waiting > 0) {
        auto event = streams_.next(until);
        if (!event) {
          Error why = explain_timeout("clock replies", missing(answered));
          // As at a window's deadline: under "continue" the silent ones are lost, if another
          // worker replied.
          if (!may_continue(why) || replied == 0) return why;
          for (size_t w : missing(answered)) {
            lose_worker(w, Error{env_.pool.name(w) + " sent no clock reply by its deadline"}, index,
                        info);
          }
          if (auto none = every_worker_lost(why)) return *none;
          break;
        }
        if (lost_[event->worker]) continue;  // what a lost worker still says is not used
        if (!event->event) {
          if (auto failed = ended(*event)) return *failed;
          if (!answered[event->worker]) {
            answered[event->worker] = true;
            --waiting;
          }
          continue;
        }
        // A result between windows is a second one of the window before, or of none begun.
        if (event->event->has_result()) {
          return result_out_of_turn(event->worker, event->event->result().window(), index);
        }
        if (!event->event->has_clock_reply()) continue;  // nothing else is due between windows
        const auto& reply = event->event->clock_reply();
        if (reply.sequence() != sequence || answered[event->worker]) continue;  // a late one
        answered[event->worker] = true;
        --waiting;
        ++replied;
        samples[event->worker].push_back(
            {sent[event->worker], reply.receive_ns(), reply.send_ns(), event->received_ns});
      }
    }
    for (size_t w = 0; w < streams_.size(); ++w) {
      if (clock_exchange_[w] && !lost_[w]) out[w] = estimate_clock(std::move(samples[w]));
    }
    return out;
  }

  // A result of window `window` from worker `w` in the clock exchange before window `running`,
  // where none is due: a second one of a window is malformed, one of another window is named
  // as such, in the words worker-check says them (workers/result_checks.h OneResultPerWindow).
  Error result_out_of_turn(size_t w, uint32_t window, uint32_t running) {
    return Error{"worker " + std::to_string(w) + " sent " +
                 results_taken_[w].take(window, running, /*between=*/true)};
  }

  static std::vector<size_t> missing(const std::vector<bool>& have) {
    std::vector<size_t> out;
    for (size_t w = 0; w < have.size(); ++w) {
      if (!have[w]) out.push_back(w);
    }
    return out;
  }

  Expected<results::Repetition> run_window(uint32_t index, const WindowInfo& info) {
    // A dead or frozen system under test would only make the control calls below wait.
    if (auto sut = env_.sut.failure()) return *sut;
    // Before every window, so that the offsets are the repetition's own (clocks drift).
    auto clocks = measure_clocks(index, info);
    if (!clocks) return clocks.error();
    if (info.measured) {
      auto begun = env_.sut.begin_window();
      if (!begun) return sut_error(begun.error());
    }
    std::optional<sut::MetricsSnapshot> before;
    if (info.measured) {
      auto snapshot = env_.sut.snapshot();
      if (!snapshot) return sut_error(snapshot.error());
      before = std::move(snapshot).value();
    }
    // Stops before the window do not concern it; from here on every one is recorded.
    stopped_.clear();
    for (size_t w = 0; w < streams_.size(); ++w) (void)env_.pool.stopped_since_last_call(w);
    (void)env_.sut.stopped_since_last_call();
    v1::Window window;
    window.set_index(index);
    window.set_measured(info.measured);
    const PlannedStart planned{steady_now_ns() + kStartLeadNs, unix_now_ns() + kStartLeadNs};
    const int64_t start_at = planned.unix_ns;
    window.set_start_at_unix_ns(start_at);
    window.set_duration_ns(info.duration_ns);
    std::vector<v1::Window> windows;
    for (size_t w = 0; w < streams_.size(); ++w) {
      auto command = window_for_worker(window, planned.steady_ns, (*clocks)[w]);
      if (!command) return Error{"worker " + std::to_string(w) + ": " + command.message()};
      windows.push_back(std::move(command).value());
    }
    env_.observer.window_started(workload_, info);
    // With on_worker_loss = "continue" a stream that refused the command is a lost worker: its
    // end event comes to the loop below like any other.
    if (!streams_.send_windows(windows) && !continues_on_loss()) {
      // A stream refused the command: its end event says why.
      auto event = streams_.next(Clock::now() + 1s);
      if (event && !event->event) return explain_end(*event);
      return explain_timeout("a worker to accept the window");
    }

    const auto window_deadline = std::min(
        deadline_, Clock::now() +
                       std::chrono::nanoseconds(kStartLeadNs + info.duration_ns + kDrainNs) +
                       kResultSlack);
    std::vector<v1::WindowResult> parts(streams_.size());
    std::vector<bool> have(streams_.size(), false);
    std::map<size_t, double> current_rate;
    HdrHistogram so_far;
    // A measured window second by second, for the report's timelines.
    TimelineBuilder timeline(info.duration_ns, streams_.size());
    size_t seconds_told = 0;  // timeline seconds passed to the observer
    size_t results = 0;
    auto next_watch = Clock::now();
    // A worker lost in this window contributes nothing to it, not even a result it had sent.
    auto lose = [&](size_t w, const Error& why) {
      if (have[w]) --results;
      have[w] = false;
      parts[w].Clear();
      lose_worker(w, why, index, info);
    };
    while (results < active()) {
      if (Clock::now() >= next_watch) {
        watch_stops(info);
        // A system under test that exited serves nothing more: the window ends now, not when
        // its workers' results or its deadline come (the workers stop with the workload). An
        // interrupt that reached it too is the interrupt.
        if (app::interrupted()) return interrupted_error();
        if (auto gone = env_.sut.exited()) return *gone;
        next_watch = Clock::now() + kStopWatch;
      }
      // A stopped worker is waited for until the deadline: continued in time, its window is
      // kept and flagged; still stopped then, it is named as the cause.
      auto event = streams_.next(std::min(window_deadline, next_watch));
      if (!event && Clock::now() < window_deadline && !app::interrupted()) continue;
      if (!event) {
        Error why =
            explain_timeout("the results of window " + std::to_string(index), missing(have));
        if (!may_continue(why) || results == 0) return why;
        // The others answered: those that did not are lost, not waited for again.
        for (size_t w = 0; w < streams_.size(); ++w) {
          if (lost_[w] || have[w]) continue;
          lose(w, Error{env_.pool.name(w) + " sent no result of window " + std::to_string(index) +
                        " by its deadline"});
        }
        break;
      }
      if (lost_[event->worker]) continue;  // what a lost worker still says is not used
      if (!event->event) {
        Error why = explain_end(*event);
        if (!may_continue(why)) return why;
        lose(event->worker, why);
        if (auto none = every_worker_lost(why)) return *none;
        continue;
      }
      if (event->event->has_progress()) {
        const auto& progress = event->event->progress();
        // Refused as worker-check refuses it, rather than be left out of (another window's)
        // or counted into the live rate and the timeline.
        if (std::string problem = workers::check_progress(progress, index); !problem.empty()) {
          return Error{"worker " + std::to_string(event->worker) +
                       " sent a malformed progress report in window " + std::to_string(index) +
                       ": " + problem};
        }
        if (progress.interval_ns() > 0) {
          current_rate[event->worker] = static_cast<double>(progress.operations()) * 1e9 /
                                        static_cast<double>(progress.interval_ns());
        }
        const auto& blob = progress.latency().hdr_v2_compressed();
        std::optional<HdrHistogram> interval_latency;
        if (!blob.empty()) {
          // Read as a result's histograms are (benchgate's layout, checked first): one of
          // another layout or unreadable fails the window naming the worker, rather than be
          // re-bucketed into the live p99 and the timeline, or silently left out of them.
          auto interval = workers::decode_histogram(blob);
          if (!interval) {
            return Error{"worker " + std::to_string(event->worker) +
                         " sent a malformed progress report in window " +
                         std::to_string(progress.window()) +
                         ": its latency histogram: " + interval.message()};
          }
          so_far.add(*interval);
          interval_latency = std::move(interval).value();
        }
        if (info.measured && progress.window() == index) {
          timeline.add(static_cast<uint32_t>(event->worker), progress.interval_ns(),
                       progress.operations(), progress.errors(), interval_latency);
          for (; seconds_told < timeline.reduced().size(); ++seconds_told) {
            env_.observer.timeline_second(workload_, info, start_at,
                                          timeline.reduced()[seconds_told]);
          }
        }
        double total_rate = 0;
        for (const auto& [w, rate] : current_rate) total_rate += rate;
        env_.observer.progress(workload_, info, total_rate, so_far.value_at_percentile(99),
                               unix_now_ns() - start_at);
      } else if (event->event->has_result()) {
        const auto& part = event->event->result();
        // One result per window, by the rule worker-check holds a stream to.
        if (std::string turn = results_taken_[event->worker].take(part.window(), index);
            !turn.empty()) {
          return Error{"worker " + std::to_string(event->worker) + " sent " + turn};
        }
        ++results;
        have[event->worker] = true;
        parts[event->worker] = part;
      }
    }

    watch_stops(info);
    std::vector<v1::WindowResult> kept;
    std::vector<size_t> kept_workers;
    std::vector<std::optional<ClockEstimate>> kept_clocks;
    std::vector<int64_t> kept_starts;  // each one's start on its own clock (0: none sent)
    for (size_t w = 0; w < parts.size(); ++w) {
      if (lost_[w] || !have[w]) continue;
      kept.push_back(std::move(parts[w]));
      kept_workers.push_back(w);
      kept_clocks.push_back((*clocks)[w]);
      kept_starts.push_back(windows[w].start_at_worker_ns());
    }
    // Each kept part under its worker's index, in errors and shares alike, so that a lost
    // worker shifts nobody's figures or name.
    auto merged = merge_window(kept, info.repetition - (info.measured ? 1 : 0), start_at,
                               info.duration_ns, kept_workers, workload_.rate, kept_starts);
    if (!merged) return merged.error();
    if (active() < streams_.size()) merged->flags.emplace_back(results::kDegraded);
    merged->sessions_ended = merge_sessions_ended(kept, kept_workers);
    // The kept workers' shares, in the order merged: each with its worker's host and clock.
    for (size_t i = 0; i < merged->workers.size() && i < kept_workers.size(); ++i) {
      merged->workers[i].host = hosts_[kept_workers[i]];
    }
    if (auto starts =
            record_starts(*merged, kept, kept_clocks, planned, workload_.max_start_skew_ns);
        !starts) {
      return starts.error();
    }
    if (!stopped_.empty()) {
      merged->flags.emplace_back(results::kProcessStopped);
      merged->stopped = stopped_;
    }
    merged->timeline = timeline.finish();
    if (auto sut = env_.sut.failure()) return *sut;
    if (info.measured && before) {
      auto after = env_.sut.snapshot();
      if (!after) return sut_error(after.error());
      if (*after) attach_router_window(*merged, *before, **after);
    }
    if (auto sut = env_.sut.failure()) return *sut;
    env_.observer.window_finished(workload_, info, info.measured ? &*merged : nullptr);
    return merged;
  }

  bool continues_on_loss() const {
    return workload_.on_worker_loss.value_or(scenario::WorkerLoss::kFail) ==
           scenario::WorkerLoss::kContinue;
  }

  // Whether the workload goes on without the worker that caused `why`: only with
  // on_worker_loss = "continue", and never when the system under test failed or the run was
  // interrupted (no other worker could measure anything then).
  bool may_continue(const Error& why) {
    if (!continues_on_loss() || why.kind == ErrorKind::kInterrupted || app::interrupted()) {
      return false;
    }
    return !env_.sut.failure();
  }

  size_t active() const {
    return static_cast<size_t>(std::count(lost_.begin(), lost_.end(), false));
  }

  // After a loss caused by `why`: the workload's failure once no worker is left.
  std::optional<Error> every_worker_lost(const Error& why) const {
    if (active() > 0) return std::nullopt;
    return Error::caused("every worker of the workload was lost", why);
  }

  // Gives up on worker `w` for the rest of the workload and says so; every repetition from here
  // on is flagged degraded. The pool asks every worker afresh before the next workload.
  void lose_worker(size_t w, const Error& why, uint32_t index, const WindowInfo& info) {
    lost_[w] = true;
    streams_.drop(w);
    const std::string window =
        info.measured ? "repetition " + std::to_string(info.repetition) : "the warm-up";
    env_.observer.message("[" + env_.scenario + "] " + workload_.name + ": " + env_.pool.name(w) +
                          " was lost during " + window + " (window " + std::to_string(index) +
                          "): " + why.headline() +
                          "; on_worker_loss = \"continue\": " + std::to_string(active()) +
                          " worker(s) go on without it, and every repetition from here on is "
                          "flagged " +
                          std::string(results::kDegraded));
  }

  // Records every child that was stopped since the last look, and says so once.
  void watch_stops(const WindowInfo& info) {
    auto note = [&](std::string who) {
      if (who.empty() || std::find(stopped_.begin(), stopped_.end(), who) != stopped_.end()) {
        return;
      }
      env_.observer.message("[" + env_.scenario + "] " + workload_.name + ": " + who +
                            " was stopped (SIGSTOP or a debugger) " +
                            (info.measured ? "during a measured window, which is flagged " +
                                                 std::string(results::kProcessStopped)
                                           : std::string("during the warm-up (not recorded)")));
      stopped_.push_back(std::move(who));
    };
    for (size_t w = 0; w < streams_.size(); ++w) note(env_.pool.stopped_since_last_call(w));
    note(env_.sut.stopped_since_last_call());
  }

  void attach_router_window(results::Repetition& rep, const sut::MetricsSnapshot& before,
                            const sut::MetricsSnapshot& after) {
    auto delta = sut::difference(before, after);
    // A foreign system's counters (a [router] metrics scrape) are reported but count no
    // requests: nothing tells which of them would.
    rep.router.collected = delta.has_requests;
    rep.router.requests = delta.has_requests ? router_operation_count(workload_, delta) : 0;
    rep.router.counters_collected = delta.has_counters;
    rep.router.counter_deltas = std::move(delta.counters);
    rep.router.sampled = delta.has_resources;
    rep.router.cpu_seconds = delta.cpu_seconds;
    rep.router.rss_bytes = delta.rss_bytes;
    rep.router.handling = std::move(delta.handling);
    if (!delta.went_down.empty()) {
      env_.observer.message("[" + env_.scenario + "] " + workload_.name + ": repetition " +
                            std::to_string(rep.index + 1) + ": " +
                            std::to_string(delta.went_down.size()) +
                            " counter(s) of the system under test went down during the window "
                            "or were missing after it (did it restart?), not measured in it: " +
                            *delta.went_down.begin() + (delta.went_down.size() > 1 ? ", ..." : ""));
    }
    if (!delta.has_requests) return;
    // Worker and router counts of one window must agree within the operations in flight
    // (docs/MEASUREMENT.md "Cross-checks": HTTP/2's streams, not in_flight, per connection),
    // the workers' counting only what could reach the router and be routed: requests the drain
    // deadline cut off before they were written (not_sent) never reached it, and the calls and
    // publications it refused with an ERROR it never routed (results/router_count.h).
    if (results::router_count_mismatch(workload_, rep)) {
      rep.flags.push_back("router_count_mismatch");
    }
  }

  const scenario::Workload& workload_;
  WorkloadEnvironment& env_;
  Clock::time_point deadline_;
  workers::WorkerStreams streams_;
  results::WorkloadResult result_;
  std::vector<std::string> stopped_;         // who was stopped during the current window
  std::vector<bool> lost_;                   // by worker: lost earlier in this workload
  std::vector<bool> clock_exchange_;         // per worker: its Ready said it answers clock probes
  std::vector<std::string> hosts_;           // per worker: worker_host() of its address
  std::vector<uint32_t> asked_connections_;  // per worker: its spec's connections
  std::string target_;                       // where the workers connect: target_address()
  std::vector<workers::OneResultPerWindow> results_taken_;  // per worker: its stream's results
  uint32_t probe_sequence_ = 0;
};

}  // namespace

results::WorkloadResult run_workload(const scenario::Workload& workload,
                                     WorkloadEnvironment& environment) {
  environment.observer.workload_started(workload);
  auto result = WorkloadRun(workload, environment).run();
  environment.observer.workload_finished(result);
  return result;
}

}  // namespace benchgate::engine
