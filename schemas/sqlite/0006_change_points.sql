-- benchgate result store, schema version 6: the change points of every series' history
-- (docs/GATES.md, "Change points"), brought up to date when a run finishes 'ok'.
--
-- A series here is one metric of one workload definition (scenario, testbed, workload,
-- variant, params_hash) over its finished 'ok' runs in run id order, the value of each run
-- being its median over repetitions, as in the view series_history.

-- How far each series has been analysed and with which parameters: a new run resumes the
-- analysis (the windows before resume_start do not change), and a reader can tell whether the
-- stored change points are those of the series as it is now (same point count, same newest
-- run, same parameters).
CREATE TABLE change_series (
  id           INTEGER PRIMARY KEY,
  scenario     TEXT NOT NULL,
  testbed_id   INTEGER NOT NULL REFERENCES testbeds(id),
  workload     TEXT NOT NULL,
  variant      TEXT NOT NULL,
  params_hash  TEXT NOT NULL,
  metric       TEXT NOT NULL,      -- throughput.rps, latency.p99, ... as gates name them
  points       INTEGER NOT NULL,   -- runs analysed
  last_run_id  INTEGER NOT NULL,   -- the newest of them
  parameters   TEXT NOT NULL CHECK (json_valid(parameters)),  -- alpha, min_change, window, ...
  resume_start INTEGER NOT NULL,   -- 0-based position of the first window that reached the end
  stable_weak  TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(stable_weak)),  -- weak change
                                   -- points (positions) the windows before it found
  frozen_until INTEGER NOT NULL DEFAULT 0,  -- change points before this position are final
  analysed_at  INTEGER NOT NULL,
  UNIQUE (scenario, testbed_id, workload, variant, params_hash, metric)
);

-- One change point: the series changed at run_id (the first run after the change).
CREATE TABLE change_points (
  id              INTEGER PRIMARY KEY,
  series_id       INTEGER NOT NULL REFERENCES change_series(id) ON DELETE CASCADE,
  run_id          INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  previous_run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,  -- the last before
  position        INTEGER NOT NULL,  -- 0-based position of run_id in the series
  runs_before     INTEGER NOT NULL,  -- the runs compared on either side
  runs_after      INTEGER NOT NULL,
  median_before   REAL NOT NULL,
  median_after    REAL NOT NULL,
  change          REAL,              -- median_after / median_before - 1; NULL from 0
  change_low      REAL,              -- its 95% interval; NULL when unbounded
  change_high     REAL,
  p_value         REAL NOT NULL,     -- permutation p-value of the split
  UNIQUE (series_id, position)
);
CREATE INDEX change_points_by_run ON change_points(run_id);
