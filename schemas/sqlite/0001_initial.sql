-- benchgate result store, schema version 1.
--
-- Users query these tables and views directly, so their names and columns are stable: new
-- columns are only added by later migrations, never renamed. Times are Unix nanoseconds
-- (INTEGER, UTC); latencies are nanoseconds in *_ns columns; JSON columns hold objects or
-- arrays (json_valid is enforced). `commit` is an SQL keyword, hence `commit_id`.

-- The machine and build a run was measured on (docs/MEASUREMENT.md, "Environment"). Gates compare
-- only runs of the same testbed.
CREATE TABLE testbeds (
  id          INTEGER PRIMARY KEY,
  fingerprint TEXT NOT NULL UNIQUE,  -- SHA-256 (hex) over every column below
  host        TEXT NOT NULL,
  cpu_model   TEXT NOT NULL,
  cores       INTEGER NOT NULL,
  kernel      TEXT NOT NULL,
  governor    TEXT NOT NULL,         -- 'unknown' where not readable
  compiler    TEXT NOT NULL,
  build_flags TEXT NOT NULL,
  first_seen  INTEGER NOT NULL
);

-- One execution of one scenario file. AUTOINCREMENT keeps ids strictly increasing (never
-- reused), so "latest" is "highest id".
CREATE TABLE runs (
  id            INTEGER PRIMARY KEY AUTOINCREMENT,
  scenario      TEXT NOT NULL,
  scenario_text TEXT NOT NULL,
  scenario_hash TEXT NOT NULL,       -- SHA-256 (hex) of scenario_text
  started_at    INTEGER NOT NULL,
  finished_at   INTEGER,
  status        TEXT NOT NULL DEFAULT 'running'
                CHECK (status IN ('running', 'ok', 'failed', 'aborted', 'abandoned')),
  exit_code     INTEGER,
  commit_id     TEXT NOT NULL DEFAULT '',
  branch        TEXT NOT NULL DEFAULT '',
  labels        TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(labels)),
  testbed_id    INTEGER NOT NULL REFERENCES testbeds(id),
  -- Which process wrote the run ("host/pid/process start/instance"), so that the next open
  -- marks as abandoned only runs whose writer is gone.
  owner         TEXT NOT NULL DEFAULT ''
);
CREATE INDEX runs_by_scenario ON runs(scenario, testbed_id, id);
CREATE INDEX runs_by_status ON runs(status) WHERE status = 'running';
CREATE INDEX runs_by_testbed ON runs(testbed_id);

-- One workload (and variant) of a run. params is the canonical JSON of the resolved workload
-- definition; params_hash identifies the series (docs/GATES.md, "Series and baselines").
CREATE TABLE workloads (
  id                  INTEGER PRIMARY KEY,
  run_id              INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  name                TEXT NOT NULL,
  variant             TEXT NOT NULL DEFAULT 'default',
  protocol            TEXT NOT NULL,
  params              TEXT NOT NULL CHECK (json_valid(params)),
  params_hash         TEXT NOT NULL,
  status              TEXT NOT NULL CHECK (status IN ('ok', 'failed')),
  error               TEXT NOT NULL DEFAULT '',
  -- Summary over repetitions (medians; min/max of throughput), NULL when not measured.
  repetition_count    INTEGER NOT NULL DEFAULT 0,
  ops_per_s_median    REAL,
  ops_per_s_min       REAL,
  ops_per_s_max       REAL,
  bytes_per_s_median  REAL,
  p50_ns_median       REAL,
  p90_ns_median       REAL,
  p99_ns_median       REAL,
  p999_ns_median      REAL,
  max_ns_median       REAL,
  errors_total        INTEGER NOT NULL DEFAULT 0,
  flags               TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(flags)),
  latency_hdr         BLOB,            -- every repetition merged, HdrHistogram V2 compressed
  UNIQUE (run_id, name, variant)
);
CREATE INDEX workloads_by_series ON workloads(name, variant, params_hash, run_id);

-- One measured window of a workload, merged over every worker and thread.
CREATE TABLE repetitions (
  id                     INTEGER PRIMARY KEY,
  workload_id            INTEGER NOT NULL REFERENCES workloads(id) ON DELETE CASCADE,
  idx                    INTEGER NOT NULL,   -- 0-based
  start_ns               INTEGER NOT NULL,   -- shared start instant, Unix ns
  duration_ns            INTEGER NOT NULL,   -- configured window
  data_window_ns         INTEGER NOT NULL,   -- first send to last receive
  operations             INTEGER NOT NULL,
  successes              INTEGER NOT NULL,
  errors_total           INTEGER NOT NULL,
  errors_by_kind         TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(errors_by_kind)),
  bytes_sent             INTEGER NOT NULL,
  bytes_received         INTEGER NOT NULL,
  late_sends             INTEGER NOT NULL DEFAULT 0,
  unsent                 INTEGER NOT NULL DEFAULT 0,
  ops_per_s              REAL NOT NULL,      -- successes / data window
  bytes_per_s            REAL NOT NULL,      -- bytes received / data window
  -- Latency figures of the corrected histogram; NULL when nothing was recorded.
  p50_ns                 INTEGER,
  p75_ns                 INTEGER,
  p90_ns                 INTEGER,
  p95_ns                 INTEGER,
  p99_ns                 INTEGER,
  p999_ns                INTEGER,
  max_ns                 INTEGER,
  mean_ns                REAL,
  latency_hdr            BLOB NOT NULL,      -- HdrHistogram V2, deflate-compressed
  service_time_hdr       BLOB,               -- open loop: uncorrected service time
  worker_cpu_s           REAL NOT NULL,
  worker_cpu_utilization REAL NOT NULL,
  -- The router's view; NULL when the system under test exposes no metrics.
  router_requests        INTEGER,
  router_cpu_s           REAL,
  router_rss_bytes       INTEGER,
  router_handling_hdr    BLOB,
  flags                  TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(flags)),
  UNIQUE (workload_id, idx)
);

-- The router's counter deltas over one repetition.
CREATE TABLE router_metrics (
  repetition_id INTEGER NOT NULL REFERENCES repetitions(id) ON DELETE CASCADE,
  name          TEXT NOT NULL,
  value         INTEGER NOT NULL,
  PRIMARY KEY (repetition_id, name)
) WITHOUT ROWID;

-- Every gate verdict with every input it used. A re-evaluation (`orchestrator gate RUN`) adds
-- a new evaluation number instead of overwriting the earlier one.
CREATE TABLE gate_results (
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
  observed        REAL,
  baseline        TEXT NOT NULL DEFAULT '',
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
CREATE INDEX gate_results_by_run ON gate_results(run_id, evaluation);

-- Named sets of runs that relative gates compare against ("main", "v2.3").
CREATE TABLE baselines (
  name     TEXT NOT NULL,
  run_id   INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  added_at INTEGER NOT NULL,
  PRIMARY KEY (name, run_id)
) WITHOUT ROWID;
CREATE INDEX baselines_by_run ON baselines(run_id);

-- The latest run of every scenario (any status).
CREATE VIEW latest_runs AS
SELECT r.id, r.scenario, r.status, r.exit_code, r.commit_id, r.branch, r.labels, r.testbed_id,
       r.started_at, r.finished_at,
       strftime('%Y-%m-%dT%H:%M:%SZ', r.started_at / 1000000000, 'unixepoch') AS started
FROM runs r
WHERE r.id = (SELECT max(r2.id) FROM runs r2 WHERE r2.scenario = r.scenario);

-- One row per workload of every run: the figures a report table shows. Latencies in seconds.
CREATE VIEW workload_summary AS
SELECT r.id AS run_id, r.scenario, r.status AS run_status, r.commit_id, r.testbed_id,
       r.started_at, w.name AS workload, w.variant, w.protocol, w.params_hash,
       w.status, w.error, w.repetition_count,
       w.ops_per_s_median, w.ops_per_s_min, w.ops_per_s_max, w.bytes_per_s_median,
       w.p50_ns_median / 1e9 AS p50_s, w.p90_ns_median / 1e9 AS p90_s,
       w.p99_ns_median / 1e9 AS p99_s, w.p999_ns_median / 1e9 AS p999_s,
       w.max_ns_median / 1e9 AS max_s, w.errors_total, w.flags
FROM workloads w JOIN runs r ON r.id = w.run_id;

-- A series' history, one row per (run, metric), in time order: the run's median over its
-- repetitions, with metric names as gates use them (docs/SCENARIOS.md) and latencies in seconds;
-- errors.total is the run's sum over repetitions. Only finished, successful runs and workloads.
-- Filter by scenario, testbed_id, workload, variant and params_hash to get one series.
CREATE VIEW series_history AS
SELECT r.scenario, r.testbed_id, w.name AS workload, w.variant, w.params_hash,
       r.id AS run_id, r.started_at, r.commit_id, r.branch, m.metric,
       CASE m.metric
         WHEN 'throughput.rps' THEN w.ops_per_s_median
         WHEN 'throughput.bytes_per_s' THEN w.bytes_per_s_median
         WHEN 'latency.p50' THEN w.p50_ns_median / 1e9
         WHEN 'latency.p90' THEN w.p90_ns_median / 1e9
         WHEN 'latency.p99' THEN w.p99_ns_median / 1e9
         WHEN 'latency.p999' THEN w.p999_ns_median / 1e9
         WHEN 'latency.max' THEN w.max_ns_median / 1e9
         WHEN 'errors.total' THEN w.errors_total
       END AS value
FROM workloads w
JOIN runs r ON r.id = w.run_id
CROSS JOIN (SELECT 'throughput.rps' AS metric UNION ALL SELECT 'throughput.bytes_per_s'
            UNION ALL SELECT 'latency.p50' UNION ALL SELECT 'latency.p90'
            UNION ALL SELECT 'latency.p99' UNION ALL SELECT 'latency.p999'
            UNION ALL SELECT 'latency.max' UNION ALL SELECT 'errors.total') m
WHERE r.status = 'ok' AND w.status = 'ok'
ORDER BY r.started_at, r.id, m.metric;
