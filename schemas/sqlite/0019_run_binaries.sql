-- benchgate result store, schema version 19: which binaries a run measured
-- (docs/MEASUREMENT.md, "Measured binaries").
--
-- A run's commit and branch are the working folder's (or --commit/--branch), which need not be
-- the build that ran: `run --router-bin` measures a router built elsewhere. Each binary the
-- orchestrator started itself for the run has a row here: the bundled router ("router"), the
-- local workers ("worker"), and the program of a `command` system under test ("command", or
-- "command NAME" for [routers.NAME] of a comparison) when it resolves to a file. Remote
-- workers (--workers-at) have none. Runs stored before this version have no row: not
-- recorded.

CREATE TABLE run_binaries (
  run_id    INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  role      TEXT NOT NULL,   -- router | worker | command | command NAME
  path      TEXT NOT NULL,   -- as resolved: absolute, symbolic links followed
  -- Where the path came from: --router-bin, $BENCHGATE_ROUTER_BIN, --worker-bin,
  -- $BENCHGATE_WORKER_BIN, "next to the orchestrator" or PATH (the bundled build), command.
  origin    TEXT NOT NULL,
  build_id  TEXT,            -- the GNU build-id of the ELF file (hex); NULL where it has none
  sha256    TEXT,            -- SHA-256 (hex) of the file, only where it has no build-id
  PRIMARY KEY (run_id, role)
);
