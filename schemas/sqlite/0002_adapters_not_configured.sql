-- benchgate result store, schema version 2: compared variants that are not installed, and
-- results from workers that wrap a tool (the h2load and wrk adapters).
--
-- A workload whose program is not installed is stored as 'not_configured' (version 1 could
-- only say 'failed'). A tool cannot measure every field: what it did not measure is NULL, never
-- 0, and `not_measured` names it; `tool_latency` keeps the latency figures the tool printed
-- (the histogram is then empty and the p*_ns columns hold only the percentiles the tool
-- printed). SQLite changes a CHECK or a NOT NULL only by rebuilding the table, so `workloads`
-- and `repetitions` are rebuilt (migrations run with foreign keys off, then checked), and the
-- views over them are dropped and created again unchanged.

DROP VIEW workload_summary;
DROP VIEW series_history;

CREATE TABLE workloads_v2 (
  id                  INTEGER PRIMARY KEY,
  run_id              INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  name                TEXT NOT NULL,
  variant             TEXT NOT NULL DEFAULT 'default',
  protocol            TEXT NOT NULL,
  params              TEXT NOT NULL CHECK (json_valid(params)),
  params_hash         TEXT NOT NULL,
  status              TEXT NOT NULL CHECK (status IN ('ok', 'failed', 'not_configured')),
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
INSERT INTO workloads_v2 (id, run_id, name, variant, protocol, params, params_hash, status, error,
                          repetition_count, ops_per_s_median, ops_per_s_min, ops_per_s_max,
                          bytes_per_s_median, p50_ns_median, p90_ns_median, p99_ns_median,
                          p999_ns_median, max_ns_median, errors_total, flags, latency_hdr)
SELECT id, run_id, name, variant, protocol, params, params_hash, status, error, repetition_count,
       ops_per_s_median, ops_per_s_min, ops_per_s_max, bytes_per_s_median, p50_ns_median,
       p90_ns_median, p99_ns_median, p999_ns_median, max_ns_median, errors_total, flags,
       latency_hdr
FROM workloads;
DROP TABLE workloads;
ALTER TABLE workloads_v2 RENAME TO workloads;
CREATE INDEX workloads_by_series ON workloads(name, variant, params_hash, run_id);

-- One measured window of a workload, merged over every worker and thread. bytes_sent,
-- data_window_ns and the worker CPU columns are NULL when the workers could not measure them.
CREATE TABLE repetitions_v2 (
  id                     INTEGER PRIMARY KEY,
  workload_id            INTEGER NOT NULL REFERENCES workloads(id) ON DELETE CASCADE,
  idx                    INTEGER NOT NULL,   -- 0-based
  start_ns               INTEGER NOT NULL,   -- shared start instant, Unix ns
  duration_ns            INTEGER NOT NULL,   -- configured window
  data_window_ns         INTEGER,            -- first send to last receive
  operations             INTEGER NOT NULL,
  successes              INTEGER NOT NULL,
  errors_total           INTEGER NOT NULL,
  errors_by_kind         TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(errors_by_kind)),
  bytes_sent             INTEGER,
  bytes_received         INTEGER,
  late_sends             INTEGER NOT NULL DEFAULT 0,
  unsent                 INTEGER NOT NULL DEFAULT 0,
  ops_per_s              REAL NOT NULL,      -- successes / data window (configured window
                                             -- when the data window was not measured)
  bytes_per_s            REAL,               -- bytes received / the same window
  -- Latency figures; NULL when not measured.
  p50_ns                 INTEGER,
  p75_ns                 INTEGER,
  p90_ns                 INTEGER,
  p95_ns                 INTEGER,
  p99_ns                 INTEGER,
  p999_ns                INTEGER,
  max_ns                 INTEGER,
  mean_ns                REAL,
  latency_hdr            BLOB NOT NULL,      -- HdrHistogram V2, deflate-compressed (empty: tool)
  service_time_hdr       BLOB,               -- open loop: uncorrected service time
  worker_cpu_s           REAL,
  worker_cpu_utilization REAL,
  -- The router's view; NULL when the system under test exposes no metrics.
  router_requests        INTEGER,
  router_cpu_s           REAL,
  router_rss_bytes       INTEGER,
  router_handling_hdr    BLOB,
  flags                  TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(flags)),
  -- Fields the workers could not measure ("bytes_sent", "data_window", "cpu", ...).
  not_measured           TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(not_measured)),
  -- The latency figures a tool printed: {"tool", "min_ns", "mean_ns", "stdev_ns", "max_ns",
  -- "percentiles_ns": {"50": ...}}; NULL when the workers sent a histogram.
  tool_latency           TEXT CHECK (tool_latency IS NULL OR json_valid(tool_latency)),
  UNIQUE (workload_id, idx)
);
INSERT INTO repetitions_v2 (id, workload_id, idx, start_ns, duration_ns, data_window_ns,
                            operations, successes, errors_total, errors_by_kind, bytes_sent,
                            bytes_received, late_sends, unsent, ops_per_s, bytes_per_s, p50_ns,
                            p75_ns, p90_ns, p95_ns, p99_ns, p999_ns, max_ns, mean_ns,
                            latency_hdr, service_time_hdr, worker_cpu_s, worker_cpu_utilization,
                            router_requests, router_cpu_s, router_rss_bytes, router_handling_hdr,
                            flags)
SELECT id, workload_id, idx, start_ns, duration_ns, data_window_ns, operations, successes,
       errors_total, errors_by_kind, bytes_sent, bytes_received, late_sends, unsent, ops_per_s,
       bytes_per_s, p50_ns, p75_ns, p90_ns, p95_ns, p99_ns, p999_ns, max_ns, mean_ns,
       latency_hdr, service_time_hdr, worker_cpu_s, worker_cpu_utilization, router_requests,
       router_cpu_s, router_rss_bytes, router_handling_hdr, flags
FROM repetitions;
DROP TABLE repetitions;
ALTER TABLE repetitions_v2 RENAME TO repetitions;

-- As in version 1.
CREATE VIEW workload_summary AS
SELECT r.id AS run_id, r.scenario, r.status AS run_status, r.commit_id, r.testbed_id,
       r.started_at, w.name AS workload, w.variant, w.protocol, w.params_hash,
       w.status, w.error, w.repetition_count,
       w.ops_per_s_median, w.ops_per_s_min, w.ops_per_s_max, w.bytes_per_s_median,
       w.p50_ns_median / 1e9 AS p50_s, w.p90_ns_median / 1e9 AS p90_s,
       w.p99_ns_median / 1e9 AS p99_s, w.p999_ns_median / 1e9 AS p999_s,
       w.max_ns_median / 1e9 AS max_s, w.errors_total, w.flags
FROM workloads w JOIN runs r ON r.id = w.run_id;

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
