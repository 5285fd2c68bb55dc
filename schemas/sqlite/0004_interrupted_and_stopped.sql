-- benchgate result store, schema version 4: interrupted workloads, and who was stopped during
-- a window.
--
-- A workload cut short by SIGINT or SIGTERM is stored as 'interrupted' (earlier versions could only
-- say 'failed'; an interrupt is not a failure of the workload), with the repetitions it
-- completed. `repetitions.stopped` names the processes (a worker, the system under test) that
-- were stopped (SIGSTOP, a debugger) at some moment of the window, even if continued before
-- its end; such a window is also flagged 'process_stopped', and gates do not judge it.
-- `workloads` is rebuilt for its CHECK (migrations run with foreign keys off, then checked),
-- and the views over it are dropped and created again unchanged.

DROP VIEW workload_summary;
DROP VIEW series_history;

CREATE TABLE workloads_v3 (
  id                  INTEGER PRIMARY KEY,
  run_id              INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  name                TEXT NOT NULL,
  variant             TEXT NOT NULL DEFAULT 'default',
  protocol            TEXT NOT NULL,
  params              TEXT NOT NULL CHECK (json_valid(params)),
  params_hash         TEXT NOT NULL,
  status              TEXT NOT NULL
                      CHECK (status IN ('ok', 'failed', 'not_configured', 'interrupted')),
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
INSERT INTO workloads_v3 (id, run_id, name, variant, protocol, params, params_hash, status, error,
                          repetition_count, ops_per_s_median, ops_per_s_min, ops_per_s_max,
                          bytes_per_s_median, p50_ns_median, p90_ns_median, p99_ns_median,
                          p999_ns_median, max_ns_median, errors_total, flags, latency_hdr)
SELECT id, run_id, name, variant, protocol, params, params_hash, status, error, repetition_count,
       ops_per_s_median, ops_per_s_min, ops_per_s_max, bytes_per_s_median, p50_ns_median,
       p90_ns_median, p99_ns_median, p999_ns_median, max_ns_median, errors_total, flags,
       latency_hdr
FROM workloads;
DROP TABLE workloads;
ALTER TABLE workloads_v3 RENAME TO workloads;
CREATE INDEX workloads_by_series ON workloads(name, variant, params_hash, run_id);

ALTER TABLE repetitions ADD COLUMN
  stopped TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(stopped));

-- As in version 3.
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
