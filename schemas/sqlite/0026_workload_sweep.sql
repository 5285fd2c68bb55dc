-- benchgate result store, schema version 26: the sweep a workload is one value of
-- (docs/SCENARIOS.md "Sweeps: `sweep` in a workload"), so that a stored run's reports fit its
-- sweep's model as the live run's did.
--
-- A stored run's reports took the sweep from the run's scenario text loaded again, which fails
-- where the text reads what the report's machine lacks (`${env:NAME}` unset, a `ca_file` that is
-- not there): the workloads were then no sweep, and the reports had no sweep section.

-- The base workload's name, the parameter swept ("request_bytes", "connections", "rate", those
-- the scenario loader sweeps: orchestrator/scenario/sweep_section.cc) and this workload's value
-- of it: all three, or all NULL (a workload of no sweep, or a run stored before this version),
-- never a part of a sweep that a report could not place.
ALTER TABLE workloads ADD COLUMN sweep_of TEXT;
ALTER TABLE workloads ADD COLUMN sweep_parameter TEXT CHECK (sweep_parameter IS NULL OR sweep_parameter IN ('request_bytes', 'connections', 'rate'));
ALTER TABLE workloads ADD COLUMN sweep_value INTEGER CHECK (sweep_value IS NULL OR (typeof(sweep_value) = 'integer' AND sweep_value >= 0)) CHECK ((sweep_of IS NULL) = (sweep_parameter IS NULL) AND (sweep_parameter IS NULL) = (sweep_value IS NULL));
