-- benchgate result store, schema version 13: how each repetition's connections were set up and
-- the TLS the server chose (docs/MEASUREMENT.md, "Connections and TLS"). NULL: not measured
-- (a WAMP workload, a tool adapter, cleartext for the TLS columns, a run stored before).

ALTER TABLE repetitions ADD COLUMN connections INTEGER;       -- set up since the last measured window
ALTER TABLE repetitions ADD COLUMN handshakes INTEGER;        -- TLS handshakes among them
ALTER TABLE repetitions ADD COLUMN connect_p50_ns INTEGER;    -- TCP connect
ALTER TABLE repetitions ADD COLUMN connect_p99_ns INTEGER;
ALTER TABLE repetitions ADD COLUMN tls_handshake_p50_ns INTEGER;
ALTER TABLE repetitions ADD COLUMN tls_handshake_p99_ns INTEGER;
ALTER TABLE repetitions ADD COLUMN ttfb_p50_ns INTEGER;       -- first request to first byte
ALTER TABLE repetitions ADD COLUMN ttfb_p99_ns INTEGER;
ALTER TABLE repetitions ADD COLUMN tls_version TEXT;          -- "TLSv1.3", as OpenSSL names it
ALTER TABLE repetitions ADD COLUMN tls_cipher TEXT;
ALTER TABLE repetitions ADD COLUMN alpn TEXT;
ALTER TABLE repetitions ADD COLUMN requested_streams INTEGER; -- http2 only
ALTER TABLE repetitions ADD COLUMN effective_streams INTEGER; -- http2 only
