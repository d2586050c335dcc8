-- The labels of a run (assay run --label, and the CI's branch, commit and
-- environment) as a JSON object, so that latest@BRANCH and
-- latest{KEY=VALUE} select runs in the index.
ALTER TABLE runs ADD COLUMN labels TEXT NOT NULL DEFAULT '{}';
