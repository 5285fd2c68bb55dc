-- benchgate result store, schema version 20: a command's arguments (docs/MEASUREMENT.md,
-- "Measured binaries").
--
-- Two variants of a comparison may run one program with different arguments (a build of the
-- router with and without a flag): the program's path and build-id are then the same, and only
-- the arguments tell the variants apart. A `command` binary records them, shell-quoted, as the
-- scenario wrote them; the router and workers, and runs stored before this version, have NULL.

ALTER TABLE run_binaries ADD COLUMN arguments TEXT;
