-- benchgate result store, schema version 21: the histograms the terminal's setup lines are of,
-- and a wamp_rpc workload's invocations per callee session (docs/MEASUREMENT.md, "Connections
-- and TLS", "Session establishment", "Invocations per callee").
--
-- Versions 13 and 16 keep each repetition's p50 and p99 of connect, TLS handshake, first byte
-- and WAMP session setup; a workload's figures over its repetitions (the terminal's
-- `connections:` and `sessions:` lines) are percentiles of every repetition's setups merged,
-- which no per-repetition percentile gives back. So the histograms themselves are kept, as
-- HdrHistogram V2 blobs as latency_hdr is, and a stored run re-reported (`orchestrator report
-- RUN --html`) prints the live run's lines. NULL: not measured (as the percentiles), or a run
-- stored before this version, whose reports say these figures are not stored.

ALTER TABLE repetitions ADD COLUMN connect_hdr BLOB;
ALTER TABLE repetitions ADD COLUMN tls_handshake_hdr BLOB;
ALTER TABLE repetitions ADD COLUMN ttfb_hdr BLOB;
ALTER TABLE repetitions ADD COLUMN session_setup_hdr BLOB;
-- wamp_rpc with callee = "worker": the INVOCATIONs each callee session got in the window, every
-- worker's sessions in worker order (JSON list). NULL: no worker callee, or a run stored before.
ALTER TABLE repetitions ADD COLUMN callee_invocations TEXT;
