-- benchgate result store, schema version 8: one figure per metric, verdicts that say when a
-- gate is underpowered or its variant not configured, and calibrated noise.
--
-- `workload_figures` holds each workload's figure of every gate metric, as the terminal,
-- RESULT lines and JSON print it and as gates judge it (docs/GATES.md, "What a gate judges"):
-- latency percentiles of the histogram of every repetition merged, errors summed, throughput
-- the median of the repetitions. Version 2 stored only medians of the repetitions' percentiles
-- (the `p*_ns_median` columns, kept unchanged), which is another figure: for runs stored
-- before this version the latency figures cannot be computed in SQL, so they are absent
-- (the views show NULL, and such runs are not a latency baseline); every other figure is
-- filled in from the stored repetitions, with the same definitions.
--
-- `series_history` names errors `errors.count`, as gates and docs/SCENARIOS.md do (it said
-- `errors.total` before), and lists every gate metric; `workload_summary` takes its latency
-- columns from the figures.
--
-- `gate_results` gains `underpowered` (relative gates: 1 when a regression of twice the
-- allowance could not have been detected, NULL for absolute gates) and `detectable` (the
-- smallest detectable regression), and the verdict `not_configured`; SQLite changes a CHECK
-- only by rebuilding the table.
--
-- `calibrations` keeps what `orchestrator calibrate` measured: per series, the between-run
-- noise of its figure over an A/A series of runs and the smallest change a relative gate can
-- detect with 1 and with 5 baseline runs.

DROP VIEW workload_summary;
DROP VIEW series_history;

CREATE TABLE workload_figures (
  workload_id INTEGER NOT NULL REFERENCES workloads(id) ON DELETE CASCADE,
  metric      TEXT NOT NULL,   -- as gates name it: latency.p99, errors.count, ...
  value       REAL NOT NULL,   -- base units: seconds, ops/s, bytes/s, bytes, a count, a ratio
  PRIMARY KEY (workload_id, metric)
) WITHOUT ROWID;

INSERT INTO workload_figures (workload_id, metric, value)
SELECT id, 'throughput.rps', ops_per_s_median FROM workloads
WHERE repetition_count > 0 AND ops_per_s_median IS NOT NULL;
INSERT INTO workload_figures (workload_id, metric, value)
SELECT id, 'throughput.bytes_per_s', bytes_per_s_median FROM workloads
WHERE repetition_count > 0 AND bytes_per_s_median IS NOT NULL;
INSERT INTO workload_figures (workload_id, metric, value)
SELECT id, 'errors.count', errors_total FROM workloads WHERE repetition_count > 0;
INSERT INTO workload_figures (workload_id, metric, value)
SELECT workload_id, 'errors.rate', CAST(sum(errors_total) AS REAL) / sum(operations)
FROM repetitions GROUP BY workload_id HAVING min(operations) > 0;
INSERT INTO workload_figures (workload_id, metric, value)
SELECT workload_id, 'router.cpu_per_request', sum(router_cpu_s) / sum(router_requests)
FROM repetitions GROUP BY workload_id
HAVING count(router_requests) = count(*) AND sum(router_requests) > 0
   AND min(router_requests) > 0;
INSERT INTO workload_figures (workload_id, metric, value)
SELECT workload_id, 'router.rss_bytes', max(router_rss_bytes) FROM repetitions
GROUP BY workload_id HAVING count(router_rss_bytes) = count(*);
INSERT INTO workload_figures (workload_id, metric, value)
SELECT workload_id, 'worker.cpu_utilization', max(worker_cpu_utilization) FROM repetitions
GROUP BY workload_id HAVING count(worker_cpu_utilization) = count(*);

CREATE TABLE gate_results_v3 (
  id              INTEGER PRIMARY KEY,
  run_id          INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  evaluation      INTEGER NOT NULL DEFAULT 1,
  evaluated_at    INTEGER NOT NULL,
  gate_index      INTEGER NOT NULL,   -- position of the gate in the scenario file, 0-based
  workload        TEXT NOT NULL,
  variant         TEXT NOT NULL DEFAULT 'default',
  metric          TEXT NOT NULL,
  kind            TEXT NOT NULL CHECK (kind IN ('absolute', 'relative')),
  threshold       REAL,
  observed        REAL,               -- the workload's figure (workload_figures.value)
  baseline        TEXT NOT NULL DEFAULT '',
  baseline_runs   TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(baseline_runs)),
  baseline_centre REAL,
  effect          REAL,
  p_value         REAL,
  alpha           REAL,
  method          TEXT NOT NULL DEFAULT '',
  verdict         TEXT NOT NULL
                  CHECK (verdict IN ('pass', 'fail', 'inconclusive', 'no_baseline', 'error',
                                     'not_configured')),
  severity        TEXT NOT NULL CHECK (severity IN ('critical', 'warning')),
  explanation     TEXT NOT NULL DEFAULT '',
  underpowered    INTEGER CHECK (underpowered IN (0, 1)),
  detectable      REAL                -- smallest detectable regression (0.05 = 5%)
);
INSERT INTO gate_results_v3 (id, run_id, evaluation, evaluated_at, gate_index, workload, variant,
                             metric, kind, threshold, observed, baseline, baseline_runs,
                             baseline_centre, effect, p_value, alpha, method, verdict, severity,
                             explanation)
SELECT id, run_id, evaluation, evaluated_at, gate_index, workload, variant, metric, kind,
       threshold, observed, baseline, baseline_runs, baseline_centre, effect, p_value, alpha,
       method, verdict, severity, explanation
FROM gate_results;
DROP TABLE gate_results;
ALTER TABLE gate_results_v3 RENAME TO gate_results;
CREATE INDEX gate_results_by_run ON gate_results(run_id, evaluation);

CREATE TABLE calibrations (
  id            INTEGER PRIMARY KEY,
  testbed_id    INTEGER NOT NULL REFERENCES testbeds(id),
  scenario      TEXT NOT NULL,
  workload      TEXT NOT NULL,
  variant       TEXT NOT NULL DEFAULT 'default',
  params_hash   TEXT NOT NULL,
  metric        TEXT NOT NULL,
  calibrated_at INTEGER NOT NULL,
  runs          INTEGER NOT NULL CHECK (runs >= 2),
  run_ids       TEXT NOT NULL CHECK (json_valid(run_ids)),  -- the A/A runs measured
  mean          REAL NOT NULL,      -- mean figure over the runs, base units
  cv            REAL NOT NULL,      -- between-run coefficient of variation of the figure
  log_sd        REAL NOT NULL,      -- the same spread in the gates' log space
  alpha         REAL NOT NULL,
  detectable_1  REAL NOT NULL,      -- smallest detectable regression with 1 baseline run
  detectable_5  REAL NOT NULL       -- ... with 5 baseline runs
);
CREATE INDEX calibrations_by_series
  ON calibrations(testbed_id, scenario, workload, variant, params_hash, metric, id);

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
       w.errors_total, w.flags
FROM workloads w JOIN runs r ON r.id = w.run_id;

-- A series' history, one row per (run, metric) the run measured, in time order: the run's
-- figure with metric names as gates use them (docs/SCENARIOS.md), in base units (seconds for
-- latency). Only finished, successful runs and workloads. Filter by scenario, testbed_id,
-- workload, variant and params_hash to get one series.
CREATE VIEW series_history AS
SELECT r.scenario, r.testbed_id, w.name AS workload, w.variant, w.params_hash,
       r.id AS run_id, r.started_at, r.commit_id, r.branch, f.metric, f.value
FROM workloads w
JOIN runs r ON r.id = w.run_id
JOIN workload_figures f ON f.workload_id = w.id
WHERE r.status = 'ok' AND w.status = 'ok'
ORDER BY r.started_at, r.id, f.metric;
