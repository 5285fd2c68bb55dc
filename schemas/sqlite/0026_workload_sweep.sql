-- benchgate result store, schema version 26: the sweep a workload is one value of
-- (docs/SCENARIOS.md "Sweeps: `sweep` in a workload"), so that a stored run's reports fit its
-- sweep's model as the live run's did.
--
-- A stored run's reports took the sweep from the run's scenario text loaded again, which fails
-- where the text reads what the report's machine lacks (`${env:NAME}` unset, a `ca_file` that is
-- not there): the workloads were then no sweep, and the reports had no sweep section.

-- The base workload's name, the parameter swept ("request_bytes", "connections", "rate") and
-- this workload's value of it. NULL: a workload of no sweep, or a run stored before this version.
ALTER TABLE workloads ADD COLUMN sweep_of TEXT;
ALTER TABLE workloads ADD COLUMN sweep_parameter TEXT;
ALTER TABLE workloads ADD COLUMN sweep_value INTEGER CHECK (sweep_value IS NULL OR (typeof(sweep_value) = 'integer' AND sweep_value >= 0));
