-- benchgate result store, schema version 23: who started each run, so that a client of
-- `orchestrator serve` cannot move the operator's history (docs/GATES.md, "Series and
-- baselines"; README, "Clients of `orchestrator serve`").
--
-- A run a client submitted to serve was stored like the operator's own: with the operator's
-- scenario name, workloads and definition it became a point of the series the operator's runs
-- (`orchestrator run`, serve's --every jobs) are judged against by change gates and shown by
-- change points. Now a series is of one side: the operator's runs (local, scheduled) or the
-- runs clients submitted (client).

-- local: `orchestrator run` (and calibrate); scheduled: one of serve's own --scenarios jobs;
-- client: submitted to serve (Submit, `orchestrator run --server`). NULL: a run stored before
-- this version, whose origin nobody recorded (serve's jobs and clients may have started it);
-- such a run is counted as the operator's (store::internal::series_side_sql), as it was, and
-- shown as not recorded. Every run stored from this version on has one (Store::begin_run).
ALTER TABLE runs ADD COLUMN origin TEXT CHECK (origin IN ('local', 'scheduled', 'client'));

-- A series' stored change-point analysis is of one side (store::internal::series_side_sql):
-- the key gains it. SQLite changes a UNIQUE key only by rebuilding the table; the rows keep
-- their ids, so change_points' references stay (migrations run with foreign keys off).
CREATE TABLE change_series_by_side (
  id           INTEGER PRIMARY KEY,
  scenario     TEXT NOT NULL,
  testbed_id   INTEGER NOT NULL REFERENCES testbeds(id),
  workload     TEXT NOT NULL,
  variant      TEXT NOT NULL,
  params_hash  TEXT NOT NULL,
  metric       TEXT NOT NULL,      -- throughput.rps, latency.p99, ... as gates name them
  submitted_by TEXT NOT NULL DEFAULT 'operator' CHECK (submitted_by IN ('operator', 'client')),
  points       INTEGER NOT NULL,   -- runs analysed
  last_run_id  INTEGER NOT NULL,   -- the newest of them
  parameters   TEXT NOT NULL CHECK (json_valid(parameters)),  -- alpha, min_change, window, ...
  resume_start INTEGER NOT NULL,   -- 0-based position of the first window that reached the end
  stable_weak  TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(stable_weak)),  -- weak change
                                   -- points (positions) the windows before it found
  frozen_until INTEGER NOT NULL DEFAULT 0,  -- change points before this position are final
  analysed_at  INTEGER NOT NULL,
  UNIQUE (scenario, testbed_id, workload, variant, params_hash, metric, submitted_by)
);
INSERT INTO change_series_by_side (id, scenario, testbed_id, workload, variant, params_hash,
                                   metric, points, last_run_id, parameters, resume_start,
                                   stable_weak, frozen_until, analysed_at)
SELECT id, scenario, testbed_id, workload, variant, params_hash, metric, points, last_run_id,
       parameters, resume_start, stable_weak, frozen_until, analysed_at
FROM change_series;
DROP TABLE change_series;
ALTER TABLE change_series_by_side RENAME TO change_series;

DROP VIEW series_history;

-- A series' history, one row per (run, metric) the run measured, in time order: the run's
-- figure with metric names as gates use them (docs/SCENARIOS.md), in base units (seconds for
-- latency). Filter by scenario, testbed_id, workload, variant, params_hash and submitted_by
-- ('operator': local and scheduled runs; 'client': runs submitted to serve) to get one series.
CREATE VIEW series_history AS
SELECT r.scenario, r.testbed_id, w.name AS workload, w.variant, w.params_hash,
       CASE WHEN r.origin = 'client' THEN 'client' ELSE 'operator' END AS submitted_by,
       r.id AS run_id, r.started_at, r.commit_id, r.branch, r.origin, f.metric, f.value
FROM workloads w
JOIN runs r ON r.id = w.run_id
JOIN workload_figures f ON f.workload_id = w.id
WHERE r.status = 'ok' AND w.status = 'ok' AND NOT EXISTS (SELECT 1 FROM json_each(w.flags) WHERE value IN ('process_stopped', 'degraded'))
ORDER BY r.started_at, r.id, f.metric;
