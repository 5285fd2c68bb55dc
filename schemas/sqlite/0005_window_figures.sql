-- benchgate result store, schema version 5: the figures of a repetition that
-- docs/MEASUREMENT.md defines by the window. Each is NULL where the workers did not report it
-- (runs stored before this version included), never 0.
--
-- window_successes: successes completed inside the window (ops_per_s = window_successes /
--   duration); payload_bytes_per_s: payload bytes of those successes per second of the window;
-- start_skew_ns: the largest difference (by magnitude) between a worker's actual start and
--   the shared start instant; worker_cpu_wait_share: the longest time a load thread waited
--   for a CPU, as a share of the window; latency_clamped: latencies above the histograms'
--   highest trackable value (1 h), recorded as that value.

ALTER TABLE repetitions ADD COLUMN window_successes INTEGER;
ALTER TABLE repetitions ADD COLUMN payload_bytes_per_s REAL;
ALTER TABLE repetitions ADD COLUMN start_skew_ns INTEGER;
ALTER TABLE repetitions ADD COLUMN worker_cpu_wait_share REAL;
ALTER TABLE repetitions ADD COLUMN latency_clamped INTEGER NOT NULL DEFAULT 0;
