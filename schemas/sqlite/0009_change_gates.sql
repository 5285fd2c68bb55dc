-- benchgate result store, schema version 9: gate results of change gates (kind 'change',
-- docs/GATES.md, "Change gates"), which judge a run against its series' own recent history.
-- SQLite changes a CHECK only by rebuilding the table; every column and row of version 8
-- (underpowered, detectable, the not_configured verdict) is kept as it was.

CREATE TABLE gate_results_v9 (
  id              INTEGER PRIMARY KEY,
  run_id          INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  evaluation      INTEGER NOT NULL DEFAULT 1,
  evaluated_at    INTEGER NOT NULL,
  gate_index      INTEGER NOT NULL,   -- position of the gate in the scenario file, 0-based
  workload        TEXT NOT NULL,
  variant         TEXT NOT NULL DEFAULT 'default',
  metric          TEXT NOT NULL,
  kind            TEXT NOT NULL CHECK (kind IN ('absolute', 'relative', 'change')),
  threshold       REAL,
  observed        REAL,               -- the workload's figure (workload_figures.value)
  baseline        TEXT NOT NULL DEFAULT '',
  -- relative gates: the baseline runs compared; change gates: the history runs compared
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
INSERT INTO gate_results_v9 (id, run_id, evaluation, evaluated_at, gate_index, workload, variant,
                             metric, kind, threshold, observed, baseline, baseline_runs,
                             baseline_centre, effect, p_value, alpha, method, verdict, severity,
                             explanation, underpowered, detectable)
SELECT id, run_id, evaluation, evaluated_at, gate_index, workload, variant, metric, kind,
       threshold, observed, baseline, baseline_runs, baseline_centre, effect, p_value, alpha,
       method, verdict, severity, explanation, underpowered, detectable
FROM gate_results;
DROP TABLE gate_results;
ALTER TABLE gate_results_v9 RENAME TO gate_results;
CREATE INDEX gate_results_by_run ON gate_results(run_id, evaluation);
