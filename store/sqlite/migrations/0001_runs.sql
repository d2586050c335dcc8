-- Runs and their per-case rows. The files under runs/ are the record; these
-- tables are an index for listing, references (latest, prefixes) and trends.
CREATE TABLE runs (
    run_id            TEXT PRIMARY KEY,
    status            TEXT NOT NULL,
    suite_name        TEXT NOT NULL DEFAULT '',
    suite_fingerprint TEXT NOT NULL DEFAULT '',
    target_kind       TEXT NOT NULL DEFAULT '',
    target_spec       TEXT NOT NULL DEFAULT '',
    started_at        TEXT NOT NULL DEFAULT '',
    finished_at       TEXT NOT NULL DEFAULT '',
    cases             INTEGER NOT NULL DEFAULT 0,
    graded            INTEGER NOT NULL DEFAULT 0,
    passed            INTEGER NOT NULL DEFAULT 0,
    failed            INTEGER NOT NULL DEFAULT 0,
    errors            INTEGER NOT NULL DEFAULT 0,
    pass_rate         REAL,
    headline          TEXT NOT NULL DEFAULT '',
    headline_value    REAL,
    assay_version     TEXT NOT NULL DEFAULT '',
    git_commit        TEXT NOT NULL DEFAULT '',
    git_dirty         INTEGER NOT NULL DEFAULT 0,
    dir               TEXT NOT NULL
);
CREATE INDEX runs_by_start ON runs (started_at DESC, run_id DESC);
CREATE INDEX runs_by_suite ON runs (suite_name, status, started_at DESC);

CREATE TABLE run_metrics (
    run_id TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
    name   TEXT NOT NULL,
    mean   REAL NOT NULL,
    n      INTEGER NOT NULL,
    PRIMARY KEY (run_id, name)
);

CREATE TABLE case_results (
    run_id      TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
    case_id     TEXT NOT NULL,
    trial       INTEGER NOT NULL,
    pass        INTEGER,            -- NULL: not graded
    error_class TEXT NOT NULL DEFAULT '',
    latency_ms  REAL,
    metrics     TEXT NOT NULL DEFAULT '{}', -- JSON object name -> value
    PRIMARY KEY (run_id, case_id, trial)
);
CREATE INDEX case_results_by_case ON case_results (case_id, run_id);
