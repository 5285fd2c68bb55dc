-- benchgate result store, schema version 14: new_connection_per_request's handshakes and TLS
-- session resumption (docs/MEASUREMENT.md, "Handshakes per second"). NULL: not measured (a
-- workload that keeps its connections, a WAMP workload, a tool adapter, a run stored before;
-- resumed also for cleartext).

ALTER TABLE repetitions ADD COLUMN window_connections INTEGER; -- set up inside the window
ALTER TABLE repetitions ADD COLUMN resumed INTEGER;            -- TLS handshakes that resumed
