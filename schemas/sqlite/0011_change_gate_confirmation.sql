-- benchgate result store, schema version 11: the confirming rerun of a change gate with
-- `confirm = 1` (docs/GATES.md, "Confirming rerun"). A change gate that would fail measures its
-- workload once more in the same run and the rerun decides; the result says what the rerun did
-- and keeps the rerun's figure and p-value beside the first measurement's (`observed`,
-- `p_value`), so that `orchestrator gate RUN` can judge the rerun again. NULL for every other
-- gate and for a change gate that did not need a rerun.

ALTER TABLE gate_results ADD COLUMN confirmation TEXT
  CHECK (confirmation IN ('confirmed', 'cleared', 'failed'));
  -- confirmed: the rerun failed too; cleared: it did not (the verdict is its own);
  -- failed: the rerun measured nothing (the verdict is error)
ALTER TABLE gate_results ADD COLUMN confirmation_observed REAL;  -- the rerun's figure
ALTER TABLE gate_results ADD COLUMN confirmation_p_value REAL;   -- the rerun's p-value
