-- The labels of a run (assay run --label, and the CI's branch, commit and
-- environment), so that latest@BRANCH and latest{KEY=VALUE} select runs in
-- the index; as the SQLite index's 0003_labels.sql.
ALTER TABLE runs ADD COLUMN labels jsonb NOT NULL DEFAULT '{}';
CREATE INDEX runs_by_labels ON runs USING gin (labels jsonb_path_ops);
