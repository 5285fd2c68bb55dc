-- benchgate result store, schema version 7: what happened inside a measured window.
--
-- The workers report progress while a window runs (proto Progress: the operations, errors and
-- latency histogram of each interval since their previous event). The orchestrator merges
-- them into one row per second of the window, so that a report can draw the window as a
-- timeline (a stall or a slow start shows), and keeps each worker's own share of the window,
-- so that a skewed load host shows. Runs stored before this version have neither: reports
-- say so instead of drawing nothing as zero.

-- One second of one measured window, over every worker (orchestrator/engine/timeline.h).
CREATE TABLE timeline (
  repetition_id INTEGER NOT NULL REFERENCES repetitions(id) ON DELETE CASCADE,
  second        INTEGER NOT NULL,  -- 0-based: [second, second + 1) s from the window's start
  ops_per_s     REAL NOT NULL,     -- successful operations per second, summed over workers
  errors        INTEGER NOT NULL,  -- failed operations in the second
  p50_ns        INTEGER,           -- of the operations completed in the second; NULL when no
  p99_ns        INTEGER,           -- worker sent a histogram (a tool's worker) or none
  max_ns        INTEGER,           -- completed
  PRIMARY KEY (repetition_id, second)
) WITHOUT ROWID;

-- One worker's own result of one measured window (before the workers are merged).
CREATE TABLE worker_windows (
  repetition_id   INTEGER NOT NULL REFERENCES repetitions(id) ON DELETE CASCADE,
  worker          INTEGER NOT NULL,  -- 0-based, in the order the workers were started
  operations      INTEGER NOT NULL,
  successes       INTEGER NOT NULL,
  errors_total    INTEGER NOT NULL,
  ops_per_s       REAL NOT NULL,     -- successes over this worker's data window (else the window)
  p99_ns          INTEGER,           -- NULL: not measured (a tool's worker, no successes)
  max_ns          INTEGER,
  cpu_utilization REAL,              -- cpu / (wall * threads); NULL when not measured
  PRIMARY KEY (repetition_id, worker)
) WITHOUT ROWID;
