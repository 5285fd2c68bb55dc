-- benchgate result store, schema version 8: gate results of change gates (kind 'change',
-- docs/GATES.md, "Change gates"), which judge a run against its series' own recent history.
-- SQLite changes a CHECK only by rebuilding the table; every column and row is kept as it was.

CREATE TABLE gate_results_v8 (
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
  observed        REAL,
  baseline        TEXT NOT NULL DEFAULT '',
  -- relative gates: the baseline runs compared; change gates: the history runs compared
  baseline_runs   TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(baseline_runs)),
  baseline_centre REAL,
  effect          REAL,
  p_value         REAL,
  alpha           REAL,
  method          TEXT NOT NULL DEFAULT '',
  verdict         TEXT NOT NULL
                  CHECK (verdict IN ('pass', 'fail', 'inconclusive', 'no_baseline', 'error')),
  severity        TEXT NOT NULL CHECK (severity IN ('critical', 'warning')),
  explanation     TEXT NOT NULL DEFAULT ''
);
INSERT INTO gate_results_v8 (id, run_id, evaluation, evaluated_at, gate_index, workload, variant,
                             metric, kind, threshold, observed, baseline, baseline_runs,
                             baseline_centre, effect, p_value, alpha, method, verdict, severity,
                             explanation)
SELECT id, run_id, evaluation, evaluated_at, gate_index, workload, variant, metric, kind,
       threshold, observed, baseline, baseline_runs, baseline_centre, effect, p_value, alpha,
       method, verdict, severity, explanation
FROM gate_results;
DROP TABLE gate_results;
ALTER TABLE gate_results_v8 RENAME TO gate_results;
CREATE INDEX gate_results_by_run ON gate_results(run_id, evaluation);
