-- The shard of a shard run (assay run --shard I/N --group NAME), so that
-- assay merge GROUP lists the runs of a group. shard_count 0: not a shard.
ALTER TABLE runs ADD COLUMN shard_group TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN shard_index INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN shard_count INTEGER NOT NULL DEFAULT 0;
CREATE INDEX runs_by_shard_group ON runs (shard_group, shard_index, started_at DESC) WHERE shard_group != '';
