-- benchgate result store, schema version 18: the view `series_history` holds a series' history
-- as relative gates, change gates and change points read it (docs/GATES.md, "Series and
-- baselines"): a run and its workload finished ok, and no window of the workload was flagged
-- process_stopped (it measured the stop) or degraded (it measured less load than asked, and
-- `baseline add` refuses it). It said only the first half before, so a query over the view saw
-- figures no gate ever judges. The WHERE clause is the text of
-- store::internal::history_workload_condition (orchestrator/store/store_history.cc); the test
-- `SeriesHistoryIsTheRunsTheGatesCallHistory` keeps the two the same.

DROP VIEW series_history;

-- A series' history, one row per (run, metric) the run measured, in time order: the run's
-- figure with metric names as gates use them (docs/SCENARIOS.md), in base units (seconds for
-- latency). Filter by scenario, testbed_id, workload, variant and params_hash to get one
-- series.
CREATE VIEW series_history AS
SELECT r.scenario, r.testbed_id, w.name AS workload, w.variant, w.params_hash,
       r.id AS run_id, r.started_at, r.commit_id, r.branch, f.metric, f.value
FROM workloads w
JOIN runs r ON r.id = w.run_id
JOIN workload_figures f ON f.workload_id = w.id
WHERE r.status = 'ok' AND w.status = 'ok' AND NOT EXISTS (SELECT 1 FROM json_each(w.flags) WHERE value IN ('process_stopped', 'degraded'))
ORDER BY r.started_at, r.id, f.metric;
