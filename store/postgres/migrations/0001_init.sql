-- Runs, their case lines and the index, all in PostgreSQL. Names follow the
-- files-and-SQLite store: runs is the index row plus the run record,
-- case_lines is cases.jsonl, case_results is the case list of run.json.
CREATE TABLE runs (
    run_id            text PRIMARY KEY,
    status            text NOT NULL,
    suite_name        text NOT NULL DEFAULT '',
    suite_fingerprint text NOT NULL DEFAULT '',
    target_kind       text NOT NULL DEFAULT '',
    target_spec       text NOT NULL DEFAULT '',
    started_at        timestamptz NOT NULL,
    finished_at       timestamptz,
    cases             integer NOT NULL DEFAULT 0,
    graded            integer NOT NULL DEFAULT 0,
    passed            integer NOT NULL DEFAULT 0,
    failed            integer NOT NULL DEFAULT 0,
    errors            integer NOT NULL DEFAULT 0,
    pass_rate         double precision,
    headline          text NOT NULL DEFAULT '',
    headline_value    double precision,
    assay_version     text NOT NULL DEFAULT '',
    git_commit        text NOT NULL DEFAULT '',
    git_dirty         boolean NOT NULL DEFAULT false,
    -- the assay.run/v1 document without its cases (JSON bytes, as run.json)
    record            bytea NOT NULL
);
CREATE INDEX runs_by_start ON runs (started_at DESC, run_id DESC);
CREATE INDEX runs_by_suite ON runs (suite_name, status, started_at DESC);

CREATE TABLE run_metrics (
    run_id text NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
    name   text NOT NULL,
    mean   double precision NOT NULL,
    n      integer NOT NULL,
    PRIMARY KEY (run_id, name)
);

-- One row per RunWriter.Append, in order: the cases.jsonl line (JSON bytes,
-- observation included; values over 2 kB are compressed by TOAST).
CREATE TABLE case_lines (
    run_id text NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
    seq    bigint NOT NULL,
    line   bytea NOT NULL,
    PRIMARY KEY (run_id, seq)
);

-- The cases of the finished run record (Finish), in order, without
-- observations, with the columns a query needs.
CREATE TABLE case_results (
    run_id      text NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
    ord         integer NOT NULL,
    case_id     text NOT NULL,
    trial       integer NOT NULL,
    pass        boolean,                      -- NULL: not graded
    error_class text NOT NULL DEFAULT '',
    latency_ms  double precision,
    metrics     jsonb NOT NULL DEFAULT '{}',  -- name -> value
    result      bytea NOT NULL,               -- the case as run.json lists it
    PRIMARY KEY (run_id, ord)
);
CREATE INDEX case_results_by_case ON case_results (case_id, run_id);
