-- The cases of a run as its suite stated them when the run asked them
-- (query, judgments, expectations; the files store's suite-cases.jsonl), so
-- that a case page needs no suite file: one row per case id, written with
-- the case's first trial, in the order of seq. case is the case's JSON
-- bytes; case_id its id as an index column holds it.
CREATE TABLE suite_cases (
    run_id  text NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
    case_id text NOT NULL,
    seq     bigint NOT NULL,
    "case"  bytea NOT NULL,
    PRIMARY KEY (run_id, case_id)
);
