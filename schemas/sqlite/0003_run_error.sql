-- benchgate result store, schema version 3: why a run failed.
--
-- A run whose results could not all be stored (the disk is full, the database stayed locked
-- past the busy timeout) finishes as 'failed' with the reason here, so it is not left
-- 'running' for a later open to call 'abandoned' (which stays reserved for an orchestrator
-- that was killed). Empty for a run that stored everything.

ALTER TABLE runs ADD COLUMN error TEXT NOT NULL DEFAULT '';
