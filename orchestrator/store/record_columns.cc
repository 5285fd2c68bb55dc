// The column tables (record_columns.h). Column names are the schema's (schemas/sqlite/).
#include "orchestrator/store/record_columns.h"

namespace benchgate::store::columns {
namespace {

constexpr Column<Testbed> kTestbed[] = {
    field<&Testbed::host>("host"),
    field<&Testbed::cpu_model>("cpu_model"),
    field<&Testbed::cores>("cores"),
    field<&Testbed::kernel>("kernel"),
    field<&Testbed::governor>("governor"),
    field<&Testbed::compiler>("compiler"),
    field<&Testbed::build_flags>("build_flags"),
};

constexpr Column<RunSummary> kRun[] = {
    field<&RunSummary::scenario>("scenario"),
    field<&RunSummary::status>("status"),
    field<&RunSummary::started_at_ns>("started_at"),
    field<&RunSummary::finished_at_ns>("finished_at"),
    field<&RunSummary::exit_code>("exit_code"),
    field<&RunSummary::commit>("commit_id"),
    field<&RunSummary::branch>("branch"),
    field<&RunSummary::labels>("labels"),
    field<&RunSummary::testbed_id>("testbed_id"),
    field<&RunSummary::error>("error"),
    field<&RunSummary::origin>("origin"),
};

constexpr Column<RunDetail> kRunText[] = {
    field<&RunDetail::scenario_text>("scenario_text"),
    field<&RunDetail::scenario_hash>("scenario_hash"),
};

constexpr Column<MeasuredBinary> kBinary[] = {
    field<&MeasuredBinary::role>("role"),     field<&MeasuredBinary::path>("path"),
    field<&MeasuredBinary::origin>("origin"), field<&MeasuredBinary::build_id>("build_id"),
    field<&MeasuredBinary::sha256>("sha256"), field<&MeasuredBinary::arguments>("arguments"),
};

constexpr Column<StoredWorkload> kWorkload[] = {
    field<&StoredWorkload::name>("name"),
    field<&StoredWorkload::variant>("variant"),
    field<&StoredWorkload::protocol>("protocol"),
    field<&StoredWorkload::params_json>("params"),
    field<&StoredWorkload::params_hash>("params_hash"),
    field<&StoredWorkload::status>("status"),
    field<&StoredWorkload::error>("error"),
    field<&StoredWorkload::repetition_count>("repetition_count"),
    field<&StoredWorkload::ops_per_s_median>("ops_per_s_median"),
    field<&StoredWorkload::ops_per_s_min>("ops_per_s_min"),
    field<&StoredWorkload::ops_per_s_max>("ops_per_s_max"),
    field<&StoredWorkload::bytes_per_s_median>("bytes_per_s_median"),
    field<&StoredWorkload::p50_ns_median>("p50_ns_median"),
    field<&StoredWorkload::p90_ns_median>("p90_ns_median"),
    field<&StoredWorkload::p99_ns_median>("p99_ns_median"),
    field<&StoredWorkload::p999_ns_median>("p999_ns_median"),
    field<&StoredWorkload::max_ns_median>("max_ns_median"),
    field<&StoredWorkload::errors_total>("errors_total"),
    field<&StoredWorkload::flags>("flags"),
    field<&StoredWorkload::latency_hdr>("latency_hdr"),
    field<&StoredWorkload::load_from>("load_from"),
    field<&StoredWorkload::worker_name>("worker_name"),
    field<&StoredWorkload::worker_version>("worker_version"),
    field<&StoredWorkload::worker_threads>("worker_threads"),
    field<&StoredWorkload::sweep_of>("sweep_of"),
    field<&StoredWorkload::sweep_parameter>("sweep_parameter"),
    field<&StoredWorkload::sweep_value>("sweep_value"),
};

constexpr Column<WorkloadFigure> kFigure[] = {
    field<&WorkloadFigure::metric>("metric"),
    field<&WorkloadFigure::value>("value"),
};

// The router's columns are NULL when it was not measured: router_requests when the router
// counted nothing (router_collected), its CPU and RSS when they were not sampled.
constexpr Column<StoredRepetition> kRouterRequests = {
    "router_requests",
    [](sqlite::Statement& s, int i, const StoredRepetition& r) {
      Codec<std::optional<uint64_t>>::bind(
          s, i, r.router_collected ? std::optional(r.router_requests) : std::nullopt);
    },
    [](const sqlite::Statement& s, int c, StoredRepetition& r) {
      r.router_collected = !s.is_null(c);
      r.router_requests = Codec<uint64_t>::read(s, c);
    }};
constexpr Column<StoredRepetition> kRouterCpu = {
    "router_cpu_s",
    [](sqlite::Statement& s, int i, const StoredRepetition& r) {
      Codec<std::optional<double>>::bind(
          s, i, r.router_sampled ? std::optional(r.router_cpu_s) : std::nullopt);
    },
    [](const sqlite::Statement& s, int c, StoredRepetition& r) {
      r.router_sampled = !s.is_null(c);
      r.router_cpu_s = Codec<double>::read(s, c);
    }};
constexpr Column<StoredRepetition> kRouterRss = {
    "router_rss_bytes",
    [](sqlite::Statement& s, int i, const StoredRepetition& r) {
      Codec<std::optional<uint64_t>>::bind(
          s, i, r.router_sampled ? std::optional(r.router_rss_bytes) : std::nullopt);
    },
    [](const sqlite::Statement& s, int c, StoredRepetition& r) {
      r.router_rss_bytes = Codec<uint64_t>::read(s, c);
    }};

constexpr Column<StoredRepetition> kRepetition[] = {
    field<&StoredRepetition::index>("idx"),
    field<&StoredRepetition::start_ns>("start_ns"),
    field<&StoredRepetition::duration_ns>("duration_ns"),
    field<&StoredRepetition::data_window_ns>("data_window_ns"),
    field<&StoredRepetition::operations>("operations"),
    field<&StoredRepetition::successes>("successes"),
    field<&StoredRepetition::errors_total>("errors_total"),
    field<&StoredRepetition::errors>("errors_by_kind"),
    field<&StoredRepetition::bytes_sent>("bytes_sent"),
    field<&StoredRepetition::bytes_received>("bytes_received"),
    field<&StoredRepetition::late_sends>("late_sends"),
    field<&StoredRepetition::unsent>("unsent"),
    field<&StoredRepetition::ops_per_s>("ops_per_s"),
    field<&StoredRepetition::bytes_per_s>("bytes_per_s"),
    field<&StoredRepetition::p50_ns>("p50_ns"),
    field<&StoredRepetition::p75_ns>("p75_ns"),
    field<&StoredRepetition::p90_ns>("p90_ns"),
    field<&StoredRepetition::p95_ns>("p95_ns"),
    field<&StoredRepetition::p99_ns>("p99_ns"),
    field<&StoredRepetition::p999_ns>("p999_ns"),
    field<&StoredRepetition::max_ns>("max_ns"),
    field<&StoredRepetition::mean_ns>("mean_ns"),
    field<&StoredRepetition::latency_hdr>("latency_hdr"),
    field<&StoredRepetition::service_time_hdr>("service_time_hdr"),
    field<&StoredRepetition::worker_cpu_s>("worker_cpu_s"),
    field<&StoredRepetition::worker_cpu_utilization>("worker_cpu_utilization"),
    kRouterRequests,
    kRouterCpu,
    kRouterRss,
    field<&StoredRepetition::router_handling_hdr>("router_handling_hdr"),
    field<&StoredRepetition::flags>("flags"),
    field<&StoredRepetition::stopped>("stopped"),
    field<&StoredRepetition::window_successes>("window_successes"),
    field<&StoredRepetition::payload_bytes_per_s>("payload_bytes_per_s"),
    field<&StoredRepetition::start_skew_ns>("start_skew_ns"),
    field<&StoredRepetition::worker_cpu_wait_share>("worker_cpu_wait_share"),
    field<&StoredRepetition::latency_clamped>("latency_clamped"),
    field<&StoredRepetition::not_measured>("not_measured"),
    field<&StoredRepetition::tool_latency_json>("tool_latency"),
    field<&StoredRepetition::connections>("connections"),
    field<&StoredRepetition::handshakes>("handshakes"),
    field<&StoredRepetition::connect_p50_ns>("connect_p50_ns"),
    field<&StoredRepetition::connect_p99_ns>("connect_p99_ns"),
    field<&StoredRepetition::tls_handshake_p50_ns>("tls_handshake_p50_ns"),
    field<&StoredRepetition::tls_handshake_p99_ns>("tls_handshake_p99_ns"),
    field<&StoredRepetition::ttfb_p50_ns>("ttfb_p50_ns"),
    field<&StoredRepetition::ttfb_p99_ns>("ttfb_p99_ns"),
    field<&StoredRepetition::tls_version>("tls_version"),
    field<&StoredRepetition::tls_cipher>("tls_cipher"),
    field<&StoredRepetition::alpn>("alpn"),
    field<&StoredRepetition::requested_streams>("requested_streams"),
    field<&StoredRepetition::effective_streams>("effective_streams"),
    field<&StoredRepetition::window_connections>("window_connections"),
    field<&StoredRepetition::resumed>("resumed"),
    field<&StoredRepetition::start_spread_ns>("start_spread_ns"),
    field<&StoredRepetition::transfers>("transfers"),
    field<&StoredRepetition::transfer_data_bytes>("transfer_data_bytes"),
    field<&StoredRepetition::transfer_data_ns>("transfer_data_ns"),
    field<&StoredRepetition::transfer_lifecycle_bytes>("transfer_lifecycle_bytes"),
    field<&StoredRepetition::transfer_lifecycle_ns>("transfer_lifecycle_ns"),
    field<&StoredRepetition::sessions>("sessions"),
    field<&StoredRepetition::session_setup_p50_ns>("session_setup_p50_ns"),
    field<&StoredRepetition::session_setup_p99_ns>("session_setup_p99_ns"),
    field<&StoredRepetition::connect_hdr>("connect_hdr"),
    field<&StoredRepetition::tls_handshake_hdr>("tls_handshake_hdr"),
    field<&StoredRepetition::ttfb_hdr>("ttfb_hdr"),
    field<&StoredRepetition::session_setup_hdr>("session_setup_hdr"),
    field<&StoredRepetition::callee_invocations>("callee_invocations"),
    field<&StoredRepetition::sessions_ended>("sessions_ended"),
};

constexpr Column<RouterCounter> kRouterCounter[] = {
    field<&RouterCounter::name>("name"),
    field<&RouterCounter::value>("value"),
};

constexpr Column<StoredSecond> kTimeline[] = {
    field<&StoredSecond::second>("second"), field<&StoredSecond::ops_per_s>("ops_per_s"),
    field<&StoredSecond::errors>("errors"), field<&StoredSecond::p50_ns>("p50_ns"),
    field<&StoredSecond::p99_ns>("p99_ns"), field<&StoredSecond::max_ns>("max_ns"),
};

constexpr Column<StoredWorkerShare> kWorkerWindow[] = {
    field<&StoredWorkerShare::worker>("worker"),
    field<&StoredWorkerShare::operations>("operations"),
    field<&StoredWorkerShare::successes>("successes"),
    field<&StoredWorkerShare::errors>("errors_total"),
    field<&StoredWorkerShare::ops_per_s>("ops_per_s"),
    field<&StoredWorkerShare::p99_ns>("p99_ns"),
    field<&StoredWorkerShare::max_ns>("max_ns"),
    field<&StoredWorkerShare::cpu_utilization>("cpu_utilization"),
    field<&StoredWorkerShare::p50_ns>("p50_ns"),
    field<&StoredWorkerShare::host>("host"),
    field<&StoredWorkerShare::clock_offset_ns>("clock_offset_ns"),
    field<&StoredWorkerShare::rtt_ns>("rtt_ns"),
    field<&StoredWorkerShare::start_skew_ns>("start_skew_ns"),
};

constexpr Column<GateRecord> kGate[] = {
    field<&GateRecord::gate_index>("gate_index"),
    field<&GateRecord::workload>("workload"),
    field<&GateRecord::variant>("variant"),
    field<&GateRecord::metric>("metric"),
    field<&GateRecord::kind>("kind"),
    field<&GateRecord::threshold>("threshold"),
    field<&GateRecord::observed>("observed"),
    field<&GateRecord::baseline>("baseline"),
    field<&GateRecord::baseline_runs>("baseline_runs"),
    field<&GateRecord::baseline_centre>("baseline_centre"),
    field<&GateRecord::effect>("effect"),
    field<&GateRecord::p_value>("p_value"),
    field<&GateRecord::alpha>("alpha"),
    field<&GateRecord::method>("method"),
    field<&GateRecord::verdict>("verdict"),
    field<&GateRecord::severity>("severity"),
    field<&GateRecord::explanation>("explanation"),
    field<&GateRecord::underpowered>("underpowered"),
    field<&GateRecord::detectable>("detectable"),
    field<&GateRecord::effect_low>("effect_low"),
    field<&GateRecord::effect_high>("effect_high"),
    field<&GateRecord::effect_confidence>("effect_confidence"),
    field<&GateRecord::confirmation>("confirmation"),
    field<&GateRecord::confirmation_observed>("confirmation_observed"),
    field<&GateRecord::confirmation_p_value>("confirmation_p_value"),
};

constexpr Column<CalibrationRecord> kCalibration[] = {
    nested_field<&CalibrationRecord::series, &SeriesKey::testbed_id>("testbed_id"),
    nested_field<&CalibrationRecord::series, &SeriesKey::scenario>("scenario"),
    nested_field<&CalibrationRecord::series, &SeriesKey::workload>("workload"),
    nested_field<&CalibrationRecord::series, &SeriesKey::variant>("variant"),
    nested_field<&CalibrationRecord::series, &SeriesKey::params_hash>("params_hash"),
    nested_field<&CalibrationRecord::series, &SeriesKey::metric>("metric"),
    field<&CalibrationRecord::calibrated_at_ns>("calibrated_at"),
    field<&CalibrationRecord::last_run_id>("last_run_id"),
    field<&CalibrationRecord::runs>("runs"),
    field<&CalibrationRecord::run_ids>("run_ids"),
    field<&CalibrationRecord::mean>("mean"),
    field<&CalibrationRecord::cv>("cv"),
    field<&CalibrationRecord::log_sd>("log_sd"),
    field<&CalibrationRecord::alpha>("alpha"),
    field<&CalibrationRecord::detectable_1>("detectable_1"),
    field<&CalibrationRecord::detectable_5>("detectable_5"),
};

constexpr Column<BaselineEntry> kBaseline[] = {
    field<&BaselineEntry::name>("name"),
    field<&BaselineEntry::run_id>("run_id"),
    field<&BaselineEntry::added_at_ns>("added_at"),
};

constexpr Column<ChangeSeriesState> kChangeSeries[] = {
    nested_field<&ChangeSeriesState::key, &ChangeSeriesKey::scenario>("scenario"),
    nested_field<&ChangeSeriesState::key, &ChangeSeriesKey::testbed_id>("testbed_id"),
    nested_field<&ChangeSeriesState::key, &ChangeSeriesKey::workload>("workload"),
    nested_field<&ChangeSeriesState::key, &ChangeSeriesKey::variant>("variant"),
    nested_field<&ChangeSeriesState::key, &ChangeSeriesKey::params_hash>("params_hash"),
    nested_field<&ChangeSeriesState::key, &ChangeSeriesKey::metric>("metric"),
    nested_field<&ChangeSeriesState::key, &ChangeSeriesKey::submitted_by>("submitted_by"),
    field<&ChangeSeriesState::points>("points"),
    field<&ChangeSeriesState::last_run_id>("last_run_id"),
    field<&ChangeSeriesState::parameters>("parameters"),
    field<&ChangeSeriesState::resume_start>("resume_start"),
    field<&ChangeSeriesState::stable_weak>("stable_weak"),
    field<&ChangeSeriesState::frozen_until>("frozen_until"),
    field<&ChangeSeriesState::analysed_at_ns>("analysed_at"),
};

constexpr Column<StoredChangePoint> kChangePoint[] = {
    field<&StoredChangePoint::run_id>("run_id"),
    field<&StoredChangePoint::previous_run_id>("previous_run_id"),
    field<&StoredChangePoint::position>("position"),
    field<&StoredChangePoint::runs_before>("runs_before"),
    field<&StoredChangePoint::runs_after>("runs_after"),
    field<&StoredChangePoint::median_before>("median_before"),
    field<&StoredChangePoint::median_after>("median_after"),
    field<&StoredChangePoint::change>("change"),
    field<&StoredChangePoint::change_low>("change_low"),
    field<&StoredChangePoint::change_high>("change_high"),
    field<&StoredChangePoint::p_value>("p_value"),
};

constexpr Column<HistoryRun> kHistoryRun[] = {
    field<&HistoryRun::run_id>("id"),
    field<&HistoryRun::started_at_ns>("started_at"),
    field<&HistoryRun::commit>("commit_id"),
};

constexpr Column<SeriesRun> kSeriesRun[] = {
    field<&SeriesRun::run_id>("id"),
    field<&SeriesRun::started_at_ns>("started_at"),
    field<&SeriesRun::commit>("commit_id"),
    field<&SeriesRun::branch>("branch"),
};

template <typename R>
void add_names(std::vector<std::string_view>& out, Columns<R> columns) {
  for (const Column<R>& c : columns) out.push_back(c.name);
}

template <typename... Tables>
StoredTable table(std::string_view name, std::span<const std::string_view> kept, bool row_id,
                  Tables... tables) {
  StoredTable t{name, {}};
  if (row_id) t.columns.push_back("id");
  t.columns.insert(t.columns.end(), kept.begin(), kept.end());
  (add_names(t.columns, tables), ...);
  return t;
}

}  // namespace

Columns<Testbed> testbed_columns() { return kTestbed; }
Columns<RunSummary> run_columns() { return kRun; }
Columns<RunDetail> run_text_columns() { return kRunText; }
Columns<MeasuredBinary> binary_columns() { return kBinary; }
Columns<StoredWorkload> workload_columns() { return kWorkload; }
Columns<WorkloadFigure> figure_columns() { return kFigure; }
Columns<StoredRepetition> repetition_columns() { return kRepetition; }
Columns<RouterCounter> router_counter_columns() { return kRouterCounter; }
Columns<StoredSecond> timeline_columns() { return kTimeline; }
Columns<StoredWorkerShare> worker_window_columns() { return kWorkerWindow; }
Columns<GateRecord> gate_columns() { return kGate; }
Columns<CalibrationRecord> calibration_columns() { return kCalibration; }
Columns<BaselineEntry> baseline_columns() { return kBaseline; }
Columns<ChangeSeriesState> change_series_columns() { return kChangeSeries; }
Columns<StoredChangePoint> change_point_columns() { return kChangePoint; }
Columns<HistoryRun> history_run_columns() { return kHistoryRun; }
Columns<SeriesRun> series_run_columns() { return kSeriesRun; }

std::vector<StoredTable> stored_tables() {
  constexpr std::span<const std::string_view> none;
  return {
      table("testbeds", kTestbedKept, true, testbed_columns()),
      table("runs", kRunKept, true, run_columns(), run_text_columns()),
      table("run_binaries", kBinaryKept, false, binary_columns()),
      table("workloads", kWorkloadKept, true, workload_columns()),
      table("workload_figures", kFigureKept, false, figure_columns()),
      table("repetitions", kRepetitionKept, true, repetition_columns()),
      table("router_metrics", kPerRepetitionKept, false, router_counter_columns()),
      table("timeline", kPerRepetitionKept, false, timeline_columns()),
      table("worker_windows", kPerRepetitionKept, false, worker_window_columns()),
      table("gate_results", kGateKept, true, gate_columns()),
      table("calibrations", none, true, calibration_columns()),
      table("baselines", none, false, baseline_columns()),
      table("change_series", none, true, change_series_columns()),
      table("change_points", kChangePointKept, true, change_point_columns()),
  };
}

}  // namespace benchgate::store::columns
