-- benchgate result store, schema version 10: `workload_summary` shows a workload's errors as
-- its figure `errors.count` (workload_figures: summed over the repetitions, as reports print it
-- and gates judge it), NULL when no repetition was measured. It showed workloads.errors_total,
-- which is 0 for a workload that never ran (failed before its first window, not_configured):
-- a figure that was not measured must not read as 0 (docs/MEASUREMENT.md). The column itself
-- is unchanged (0 without repetitions); the view is the place to read it.

DROP VIEW workload_summary;
CREATE VIEW workload_summary AS
SELECT r.id AS run_id, r.scenario, r.status AS run_status, r.commit_id, r.testbed_id,
       r.started_at, w.name AS workload, w.variant, w.protocol, w.params_hash,
       w.status, w.error, w.repetition_count,
       w.ops_per_s_median, w.ops_per_s_min, w.ops_per_s_max, w.bytes_per_s_median,
       (SELECT value FROM workload_figures f WHERE f.workload_id = w.id
        AND f.metric = 'latency.p50') AS p50_s,
       (SELECT value FROM workload_figures f WHERE f.workload_id = w.id
        AND f.metric = 'latency.p90') AS p90_s,
       (SELECT value FROM workload_figures f WHERE f.workload_id = w.id
        AND f.metric = 'latency.p99') AS p99_s,
       (SELECT value FROM workload_figures f WHERE f.workload_id = w.id
        AND f.metric = 'latency.p999') AS p999_s,
       (SELECT value FROM workload_figures f WHERE f.workload_id = w.id
        AND f.metric = 'latency.max') AS max_s,
       (SELECT CAST(value AS INTEGER) FROM workload_figures f WHERE f.workload_id = w.id
        AND f.metric = 'errors.count') AS errors_total,
       w.flags
FROM workloads w JOIN runs r ON r.id = w.run_id;
