// Package store keeps run records (docs/json.md): files first, with an
// SQL index for listing, references and trends.
//
// Layout of a store rooted at DIR (default .assay, chosen by --store or
// ASSAY_STORE in the CLI):
//
//	DIR/runs/<run_id>/run.json     the assay.run/v1 document (cases without observations)
//	DIR/runs/<run_id>/cases.jsonl  one line per case and trial: checks, metrics, observation
//	                               (cases.jsonl.gz once the run finished: zcat to read)
//	DIR/assay.db                   SQLite index: runs, run_metrics, case_results, schema_migrations
//
// Run ids are UUIDv7 (NewRunID), lowercase and time-ordered.
//
// # Writing a run
//
// A run command calls Begin, which creates the run directory and writes
// run.json with status "incomplete" before any case runs; Append writes one
// cases.jsonl line per graded case (one write each, synced at least every
// second), and Finish writes the final run.json through a temporary file and
// an atomic rename, compresses cases.jsonl to cases.jsonl.gz (gzip; about a
// sixth of the size, so a 1,000-case run of the quickstart kind stays well
// under 1 MB on disk) and then updates the index in one transaction. A process
// that is killed (kill -9, Ctrl-C before Finish) therefore leaves a run that
// is listed as incomplete, whose finished cases can still be read, and that
// "latest" never names.
//
// # Reading runs
//
// LoadRun reads a run.json (or its directory) with no database: compare
// a/run.json b/run.json works on bare files. Every error names the file, with
// line and column for JSON syntax errors; a corrupt or truncated file is an
// error, never a panic. ReadCases streams cases.jsonl.
//
// A REF (ResolveRef) is, everywhere: a path to a run.json or its directory;
// "latest" (newest complete run); "latest~N" (the Nth complete run before
// the latest, same suite); or a run id or unique prefix of one.
//
// # Concurrency
//
// Several processes may write runs into one store at once. Each run has its
// own directory; the SQLite index is opened in WAL mode with a busy timeout,
// write transactions begin IMMEDIATE, and any SQLITE_BUSY that still
// surfaces is retried with jittered backoff for up to a minute.
//
// # Runs being written, deleting and copying
//
// A run's writer holds an exclusive flock on the run's directory from
// Begin until Finish has updated the index (or until its process ends).
// Delete takes that lock without waiting, so a run a live process is
// writing is never deleted: Delete says ErrInProgress (ProgressReporter
// asks without deleting), and `assay runs prune` keeps the run and says
// why. Delete removes the index row, renames the directory aside in one
// step and then removes it, so a Delete killed half-way leaves either the
// whole run or nothing under runs/ (Open finishes removing what it left).
// Without flock (Windows) Delete does not see writers.
//
// Copy copies runs between any two stores and verifies each copy (Digest:
// the run's record and case lines, their count and a SHA-256 over them);
// a run the destination holds only part of (a killed copy) is copied
// again, not skipped.
//
// Text that goes into a column of the index (suite name, target, case id,
// error class, metric name) is kept as IndexText has it (invalid UTF-8
// and NUL as U+FFFD), the rule the Postgres store follows too; run.json
// and cases.jsonl keep their JSON, NUL included.
//
// # Index
//
// Migrations are embedded (migrations/NNNN_name.sql) and recorded in
// schema_migrations as they are applied; Open applies them (the index is
// the store directory's own). An index at a schema version newer than
// this assay knows is refused (ErrSchema). The index can always be rebuilt
// from the files: Open (Reindex) indexes any run directory it does not know,
// drops the rows of deleted run directories and repairs a row still marked
// incomplete whose run.json says complete, so deleting assay.db loses
// nothing. Trend (a metric or pass_rate over the complete runs of a suite)
// and CaseHistory (one case across runs) read the index.
//
// # Temporary files
//
// run.json and cases.jsonl.gz are written through temporary files beside
// them (".run.json.*.tmp", ".cases.jsonl.gz.*.tmp") and renamed into place.
// The writer holds an exclusive flock on its temporary file until the
// rename (which happens while it is still open), so a process killed in
// between leaves a file no one holds: Open sweeps those from the
// directories of runs still marked incomplete (and of runs it indexes for
// the first time). A live writer's file is locked and stays. Without flock
// (Windows) a temporary file is left until an hour old.
//
// # Read-only stores, full disks and locks
//
// Open with ForReading (runs, runs show, compare, gate) is the same when the store can
// be written. When the directory or the index cannot be written by this user
// (modes, a read-only mount, an immutable file), it opens assay.db with
// mode=ro (immutable=1 if SQLite cannot open the WAL index read-only there),
// applies no migration and repairs nothing; an index it cannot read that
// way (none, an older schema) is rebuilt in memory from the run files.
// Begin on such a store fails. Open with ReadOnly (assay ui) opens it
// that way whether or not it could be written, so it creates nothing.
//
// A full disk and an unwritable store are said in plain words, naming the
// store and then what the system said: "the disk holding the store DIR is
// full (no space left on the device): ..." rather than "unable to open
// database file (14)" or "disk I/O error (4874)". SQLite's own open errors
// are read as a full disk when the file system has no space left, and as an
// unwritable store when a probe write in it fails.
//
// SQLite waits a second for a lock itself; retry waits on, for up to a
// minute. OpenOptions.Waiting is called once when a wait has lasted about a
// second (WaitNotice), so that a CLI can say it is waiting.
//
// # Provenance helpers
//
// GitInfo reads the commit and dirty flag of the repository holding a
// directory. Records hold no secret: they are redacted before they reach
// the store, with the one rule of package redact (cmd/assay and the runner
// apply it).
//
// # Backends
//
// Store is a small interface with two implementations: SQLiteStore (files
// and the SQLite index, above) and store/postgres (runs, cases and the
// index in PostgreSQL). Open picks one from the spec: a directory, or a
// URL whose scheme OpenOptions.Backends knows (the assay command knows
// them all). Readers go through the interface: Load (a REF to the run
// record), Cases (the case lines, with or without observations), Trend and
// Delete, so a command works the same on either. A path REF (a run.json)
// is read from its file whatever the store. A store with files says so by
// the RunFiler capability; Entry.Path and RunWriter.Dir are empty for one
// without. store/storetest is the conformance suite every implementation
// passes.
package store
