-- benchgate result store, schema version 12: a relative gate's effect keeps its confidence
-- interval (docs/GATES.md, "Verdicts"): d +- t * standard error, from the same standard
-- error and degrees of freedom the gate's t-test used, two-sided at effect_confidence
-- (1 - 2 alpha). NULL where the method gives none (absolute and change gates, nested-t on one
-- baseline run, nothing compared) and for every evaluation stored before this version.
ALTER TABLE gate_results ADD COLUMN effect_low REAL;
ALTER TABLE gate_results ADD COLUMN effect_high REAL;
ALTER TABLE gate_results ADD COLUMN effect_confidence REAL;
