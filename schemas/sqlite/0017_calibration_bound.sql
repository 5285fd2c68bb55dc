-- benchgate result store, schema version 17: which runs a calibration may judge
-- (docs/GATES.md, "Calibration"). `last_run_id` is the newest run stored when the calibration
-- was stored; a run's gates use only a calibration with a smaller `last_run_id` than its own
-- id, so that `orchestrator gate RUN` judges an old run with the noise it had, as it judges it
-- against the baseline runs stored before it. Run ids grow with start time and runs are never
-- deleted, so the bound needs no clock.

ALTER TABLE calibrations ADD COLUMN last_run_id INTEGER NOT NULL DEFAULT 0;

-- A calibration stored before this version: the runs that had started when it was stored.
UPDATE calibrations SET last_run_id =
  (SELECT coalesce(max(r.id), 0) FROM runs r WHERE r.started_at <= calibrations.calibrated_at);
