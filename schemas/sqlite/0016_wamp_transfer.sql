-- benchgate result store, schema version 16: a wamp_transfer workload's transfers
-- (docs/MEASUREMENT.md, "Transfer throughput"), summed over the window's verified transfers:
-- the data window (first chunk's arrival to the last one's; the chunks after the first) and
-- the lifecycle (TCP connect to the close after GOODBYE; every byte). Gbit/s is
-- 8 * bytes / ns. NULL: not a wamp_transfer workload, or a run stored before.

ALTER TABLE repetitions ADD COLUMN transfers INTEGER;
ALTER TABLE repetitions ADD COLUMN transfer_data_bytes INTEGER;
ALTER TABLE repetitions ADD COLUMN transfer_data_ns INTEGER;
ALTER TABLE repetitions ADD COLUMN transfer_lifecycle_bytes INTEGER;
ALTER TABLE repetitions ADD COLUMN transfer_lifecycle_ns INTEGER;

-- WAMP session establishment (docs/MEASUREMENT.md, "Session establishment"): the sessions set
-- up for the repetition and the p50 and p99 of their TCP connect to WELCOME. NULL: an HTTP
-- workload, a run stored before; the percentiles also when no session was set up.
ALTER TABLE repetitions ADD COLUMN sessions INTEGER;
ALTER TABLE repetitions ADD COLUMN session_setup_p50_ns INTEGER;
ALTER TABLE repetitions ADD COLUMN session_setup_p99_ns INTEGER;
