-- benchgate result store, schema version 22: why the router ended WAMP sessions in a window, and
-- who the workload's workers said they were (docs/MEASUREMENT.md, "Operations, successes and
-- errors"; docs/WORKER_PROTOCOL.md, "Describe").
--
-- A run's terminal and JSON report quote each worker's WindowResult.sessions_ended (a router's
-- ABORT or GOODBYE to a joined session, each also one protocol error); the store kept only the
-- protocol errors, so `runs show` and a report rebuilt from the store (`report RUN`, the HTML)
-- could not say why. And a [worker_impls] command is recorded by its program's path and
-- build-id (run_binaries), but not by the name and version its Describe answered.

-- Each worker's sessions the peer ended, as the JSON report's sessions_ended: a JSON list of
-- {"worker", "reason", "sessions"}, the reason escaped and bounded as reports show it; "[]":
-- none ended. NULL: a run stored before this version.
ALTER TABLE repetitions ADD COLUMN sessions_ended TEXT;
-- What the workload's workers answered to Describe, each escaped and cut after 200 bytes; workers
-- that answered differently give each one's distinct values in worker order, ", " between. NULL:
-- no worker answered (the workload never reached its workers), or a run stored before.
ALTER TABLE workloads ADD COLUMN worker_name TEXT;
ALTER TABLE workloads ADD COLUMN worker_version TEXT;
