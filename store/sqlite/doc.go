// Package sqlite is the run store of the CLI: the run files of package
// store (ROOT/runs/<run_id>/) with an SQLite index at ROOT/assay.db for
// listing, references, trends and case histories. It is linked by the
// callers that want it (cmd/assay passes Open as
// store.OpenOptions.Directory); a library user who opens a directory
// without it gets store.Files, the files alone.
//
// # Concurrency
//
// Several processes may write runs into one store at once. Each run has its
// own directory; the SQLite index is opened in WAL mode with a busy timeout,
// write transactions begin IMMEDIATE, and any SQLITE_BUSY that still
// surfaces is retried with jittered backoff for up to a minute.
//
// # Index
//
// Migrations are embedded (migrations/NNNN_name.sql) and recorded in
// schema_migrations as they are applied; Open applies them (the index is
// the store directory's own). An index at a schema version newer than
// this assay knows is refused (store.ErrSchema). The index can always be rebuilt
// from the files: Open (Reindex) indexes any run directory it does not know,
// drops the rows of deleted run directories and repairs a row still marked
// incomplete whose run.json says complete, so deleting assay.db loses
// nothing. Trend (a metric or pass_rate over the complete runs of a suite)
// and CaseHistory (one case across runs) read the index.
//
// A run's case rows (table case_rows) are keyed by the run's integer key
// (runs.run_key, given once, the next after the largest) with the case id
// and trial, in a table without rowids whose key is its only index; the
// view case_results has them with the run's id, as the table of that name
// had before migration 0004. They are taken from the cases as the run
// appends them, 5,000 to a transaction, so a run's index is written while
// it goes and Finish reads no case back; a run whose Finish is given
// other cases than those appended (a caller that did not stream them from
// its writer) is indexed from those instead. Until Finish commits, the
// run's row says incomplete, so no REF names a run with part of its rows.
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
// minute. store.OpenOptions.Waiting is called once when a wait has lasted about a
// second (store.WaitNotice), so that a CLI can say it is waiting.
package sqlite
