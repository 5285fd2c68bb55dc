-- benchgate result store, schema version 24: how many load threads each of a workload's workers
-- said it runs (Ready.threads, docs/WORKER_PROTOCOL.md "Starting and readiness").
--
-- The reports' "N worker(s) x T thread(s)" showed the scenario's `threads`, which a worker need
-- not run: wamp_pubsub's are at most its publishers and subscribers, a tool adapter's are the
-- tool's, examples/python_worker runs one. The workload parameters (workloads.params) are hashed
-- into the series key, so the workers' answer has a column of its own.

-- Each worker's Ready.threads in worker order, a JSON list ("[4,4]"). NULL: no worker was
-- ready (the workload never reached its windows), or a run stored before this version.
ALTER TABLE workloads ADD COLUMN worker_threads TEXT CHECK (worker_threads IS NULL OR json_valid(worker_threads));
