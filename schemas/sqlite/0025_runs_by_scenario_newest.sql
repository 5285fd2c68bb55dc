-- benchgate result store, schema version 25: a scenario's runs newest first, for the latest run
-- of a scenario with a workload (Store::latest_workload_series, serve's web history page).
--
-- runs_by_scenario orders a scenario's runs by testbed first, so the newest of them across
-- testbeds was found by reading and sorting every run of the scenario: 57 to 274 ms median over
-- 100,000 runs (2 testbeds, 3 workloads each; a 2-core VM at load average 2 to 7). In this index
-- a scenario's runs are in id order, which is start order: the walk starts at the newest and
-- stops at the first run with the workload, 0.02 to 0.03 ms on the same store. A workload no run
-- of the scenario has is still a walk of all of them (no sort): 55 to 96 ms before and after.
CREATE INDEX runs_by_scenario_newest ON runs(scenario, id);
