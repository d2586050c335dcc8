// Package store keeps run records (docs/json.md): the Store interface,
// the run files and REF resolution. The files are the record; an index
// for listing, references and trends is a backend's (store/sqlite beside
// the files, store/postgres instead of them), linked by the caller that
// wants it, so that a library user links no database.
//
// Layout of a store rooted at DIR (default .assay, chosen by --store or
// ASSAY_STORE in the CLI):
//
//	DIR/runs/<run_id>/run.json     the assay.run/v1 document (cases without observations)
//	DIR/runs/<run_id>/cases.jsonl  one line per case and trial: checks, metrics, observation
//	                               (cases.jsonl.gz once the run finished: zcat to read)
//	DIR/assay.db                   the SQLite index, when the store is opened with store/sqlite
//
// Run ids are UUIDv7 (NewRunID), lowercase and time-ordered.
//
// # Writing a run
//
// A run command calls Begin, which creates the run directory and writes
// run.json with status "incomplete" before any case runs; Append writes one
// cases.jsonl line per graded case (whole lines through a buffer, written
// at most 0.2 s after they are appended, at once when nothing was written
// for 0.2 s, and by Flush, a Flusher's, before the run's own results are
// read back; synced at least every second), and Finish writes the final run.json through a temporary file and
// an atomic rename (a writer that keeps its cases encoded, CaseDocumenter,
// copies them into it when the run is given them, rather than reading
// cases.jsonl back), compresses cases.jsonl to cases.jsonl.gz (gzip; about a
// tenth of the size) and then updates the index. An index kept beside the
// files (Indexer, BeginIndexed: store/sqlite's) is given each case as it is
// appended and writes its rows in batches, so it reads nothing back either;
// a 1,000-case run against a stub takes about 0.47 MB on disk with its
// SQLite index (run.json alone is two thirds of it). A process
// that is killed (kill -9, Ctrl-C before Finish) therefore leaves a run that
// is listed as incomplete, whose finished cases can still be read (all but
// those of its last 0.2 s), and that "latest" never names.
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
// the latest, same suite); or a run id or unique prefix of one. A run id
// or prefix is looked up among the runs whose id starts with it when the
// store can list those alone (PrefixLister: the files store reads the
// headers of the run directories so named, store/sqlite queries its
// index), so resolving it does not read every run; a store without it is
// listed whole.
//
// # Concurrency
//
// Several processes may write runs into one store at once. Each run has its
// own directory; an index (store/sqlite) keeps its own locking.
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
// # The files store and the index
//
// OpenFiles opens a directory as the files alone (Files): every Store
// method works, List and Trend by reading each run's header (PeekRun), so
// a listing costs a read per run. That is what Open gives a directory
// when OpenOptions.Directory is nil. The CLI passes store/sqlite's Open,
// the run files with an SQLite index that can always be rebuilt from
// them; BeginRun, RunCases, RemoveRun, RunInProgress, RunDirs and Explain
// are the steps on the files both share.
//
// # Temporary files
//
// run.json and cases.jsonl.gz are written through temporary files beside
// them (".run.json.*.tmp", ".cases.jsonl.gz.*.tmp") and renamed into place.
// The writer holds an exclusive flock on its temporary file until the
// rename (which happens while it is still open), so a process killed in
// between leaves a file no one holds: opening the store sweeps those (the
// files store from every run directory, store/sqlite from the runs its
// index marks incomplete). A live writer's file is locked and stays. Without flock
// (Windows) a temporary file is left until an hour old.
//
// # Read-only stores and full disks
//
// Open with ForReading (runs, runs show, compare, gate) is the same when
// the store can be written. When it cannot be written by this user
// (modes, a read-only mount, an immutable file), it is opened read-only:
// nothing is created or repaired, and Begin and Delete fail. Open with
// ReadOnly (assay ui) opens it that way whether or not it could be
// written, so it creates nothing.
//
// A full disk and an unwritable store are said in plain words (Explain),
// naming the store and then what the system said: "the disk holding the
// store DIR is full (no space left on the device): ..." rather than "no
// space left on device" or an index's "unable to open database file (14)".
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
// Store is a small interface with three implementations: Files (the run
// files alone), store/sqlite (the files and an SQLite index) and
// store/postgres (runs, cases and the index in PostgreSQL). Open picks one
// from the spec: a directory (OpenOptions.Directory, else Files), or a
// URL whose scheme OpenOptions.Backends knows (the assay command knows
// them all). Readers go through the interface: Load (a REF to the run
// record), Cases (the case lines, with or without observations), Trend and
// Delete, so a command works the same on either. A path REF (a run.json)
// is read from its file whatever the store. A store with files says so by
// the RunFiler capability; Entry.Path and RunWriter.Dir are empty for one
// without. Every backend keeps a run's cases as its suite stated them
// (SuiteCaseWriter, SuiteCaseReader: suite-cases.jsonl.gz in a run's
// directory, a table in Postgres), so a case is shown from the store
// alone, and Copy and Digest carry and check them. store/storetest is the
// conformance suite every implementation passes.
package store
