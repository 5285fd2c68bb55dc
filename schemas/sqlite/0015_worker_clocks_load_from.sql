-- benchgate result store, schema version 15: one start across hosts, and where the load came
-- from (docs/MEASUREMENT.md, "Clock offset and start skew" and "Where the load came from").
-- NULL: not measured (a worker that does not take part in the clock exchange, a worker that
-- does not report its start, a run stored before this version).

-- Each worker's own view of a measured window, beside its counts (schema version 7).
ALTER TABLE worker_windows ADD COLUMN p50_ns INTEGER;           -- NULL as p99_ns
ALTER TABLE worker_windows ADD COLUMN host TEXT;                -- "local" or HOST:PORT
ALTER TABLE worker_windows ADD COLUMN clock_offset_ns INTEGER;  -- worker clock - orchestrator's
ALTER TABLE worker_windows ADD COLUMN rtt_ns INTEGER;           -- lowest delay of the exchange
ALTER TABLE worker_windows ADD COLUMN start_skew_ns INTEGER;    -- achieved start - shared start

-- The span of the shared start and every worker's achieved start; over the workload's
-- max_start_skew it flags start_skew.
ALTER TABLE repetitions ADD COLUMN start_spread_ns INTEGER;

-- "local" (every worker on this machine: spawned, or at a loopback address) or the workers'
-- hosts, comma-separated.
ALTER TABLE workloads ADD COLUMN load_from TEXT;
