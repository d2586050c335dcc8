-- The case rows keyed by a small integer per run (runs.run_key) rather
-- than the run's 36-character id, in a table without rowids whose primary
-- key is its only index (a case's history is found through runs_by_suite
-- and that key): a 1,000-case run's rows take about a fifth of the pages
-- they took. case_results stays, as a view with the columns it had.
ALTER TABLE runs ADD COLUMN run_key INTEGER;
UPDATE runs SET run_key = rowid;
CREATE UNIQUE INDEX runs_by_key ON runs (run_key);

CREATE TABLE case_rows (
    run_key     INTEGER NOT NULL REFERENCES runs (run_key) ON DELETE CASCADE,
    case_id     TEXT NOT NULL,
    trial       INTEGER NOT NULL,
    pass        INTEGER,            -- NULL: not graded
    error_class TEXT NOT NULL DEFAULT '',
    latency_ms  REAL,
    metrics     TEXT NOT NULL DEFAULT '{}', -- JSON object name -> value
    PRIMARY KEY (run_key, case_id, trial)
) WITHOUT ROWID;
INSERT INTO case_rows (run_key, case_id, trial, pass, error_class, latency_ms, metrics)
    SELECT r.run_key, c.case_id, c.trial, c.pass, c.error_class, c.latency_ms, c.metrics
    FROM case_results c JOIN runs r ON r.run_id = c.run_id;
DROP TABLE case_results;
CREATE VIEW case_results AS
    SELECT r.run_id, c.case_id, c.trial, c.pass, c.error_class, c.latency_ms, c.metrics
    FROM case_rows c JOIN runs r ON r.run_key = c.run_key;
