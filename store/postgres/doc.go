// Package postgres is the team store: runs, their case lines and the index
// in one PostgreSQL database (github.com/jackc/pgx/v5), behind the same
// store.Store interface as the files-and-SQLite store, passing the same
// store/storetest conformance suite. store.Open (through the assay command's backend map,
// or with Open in OpenOptions.Backends) opens it for a URL
//
//	postgres://USER@HOST:PORT/DB?sslmode=disable
//	postgresql://USER:${ASSAY_PG_PASSWORD}@db.internal:5432/assay?sslmode=verify-full
//
// The URL takes every libpq parameter pgx knows (sslmode, connect_timeout,
// application_name, ...); any other query parameter is a run-time setting of
// the session, such as search_path=team_a to keep the tables in schema
// team_a (which must exist).
//
// # Passwords
//
// A password is never written into a command line or a CI file: give it as
// ${VAR} in the URL (expanded through OpenOptions.Getenv, the CLI's
// environment; an unset VAR is an error that names it), or leave it out and
// let pgx find it in PGPASSWORD or the password file (~/.pgpass, or
// PGPASSFILE), as libpq does. The URL is shown only through
// store.RedactURL (user info replaced by [redacted]), and every error the
// store returns has the password, and each ${VAR} value, taken out of its
// text. Nothing of the URL reaches a run record.
//
// # Schema and migrations
//
// The tables (migrations/NNNN_name.sql, embedded) are
//
//	runs          one row per run: the index columns (status, suite, times,
//	              counts, pass rate, headline metric, git commit) and record,
//	              the assay.run/v1 document without its cases (the bytes
//	              run.json would hold)
//	run_metrics   (run_id, name, mean, n): what Trend reads
//	case_lines    (run_id, seq, line): one row per RunWriter.Append, the
//	              cases.jsonl line with its observation, as bytea of JSON
//	case_results  (run_id, ord, case_id, trial, pass, error_class,
//	              latency_ms, metrics jsonb, result): the cases of the run
//	              record as Finish received them, without observations
//	suite_cases   (run_id, case_id, seq, case): each case as the suite
//	              stated it when the run asked it (store.SuiteCaseWriter),
//	              the case's JSON as bytea; its key is (run_id, case_id),
//	              so store.SuiteCaseReader reads one case in one row
//
// Observations are kept as bytea holding the JSON line, not jsonb: jsonb
// refuses a "\u0000" that an answer may hold, and reorders keys; PostgreSQL
// compresses any value over about 2 kB itself (TOAST), so a large ranking
// costs a fraction of its text. metrics is jsonb for queries by hand
// (SELECT case_id FROM case_results WHERE (metrics->>'ndcg@10')::float < 0.5).
//
// Only `assay store migrate` (OpenOptions.Migrate) changes the schema: it
// applies the migrations the database lacks, in one transaction holding an
// advisory lock (keyed by the schema), so that jobs migrating at once
// apply each migration once and the others wait. Every other open only
// reads schema_migrations (SELECT) and refuses a schema that is not
// SchemaVersion: missing or older, with the command to run; newer (a
// newer assay migrated it), with the advice to use that release. So a
// role that may not create tables runs every other command:
//
//	reader  USAGE on the schema, SELECT on its tables: runs, compare, gate, ui
//	writer  the reader's, and INSERT, UPDATE on the tables and DELETE on
//	        runs (prune; the run's other rows go by cascade): run, merge
//	owner   owns the schema and its tables: store migrate
//
// # Lost connections
//
// Once a store has connected, an operation that fails because the
// connection did (refused, reset, closed; the server shutting down,
// starting up, or a standby not yet promoted) is retried on a new
// connection with jittered backoff (internal/retry) for RetryWindow (30 s).
// Each attempt is one statement or one transaction, made safe to repeat:
// a batch of case lines whose commit was not acknowledged finds its first
// line there, a Finish finds its record. Opening is not retried, so a wrong URL fails at
// once.
//
// # Runs being written
//
// A writer holds a session advisory lock keyed by the run (and schema) on
// a connection of its own, outside the pool, from Begin to Finish, and
// takes it again after a lost connection. Delete takes the same lock
// without waiting in its transaction: a run a live process is writing is
// not deleted (store.ErrInProgress), which `assay runs prune` reports.
//
// Text the index keeps in text columns is store.IndexText (PostgreSQL
// text holds neither NUL nor invalid UTF-8), the files store's rule; the
// record and the case lines are bytea of JSON and keep NUL as it is.
//
// # Writing and reading
//
// Begin inserts the run's row (status incomplete). Append and
// AppendSuiteCase queue what they are given; a goroutine of the writer
// writes the queue in batches, each one transaction (the case lines by
// COPY, the suite's cases by one INSERT that leaves a case id the run has
// as it is), once a batch holds 1,000 lines or 4 MB and at least every
// second: a killed process loses about the last second of cases, as the
// files store (which syncs every second) may, and a commit is not paid per
// case, which with fsync on (a production server) was the cost of a run.
// When the database falls behind, Append waits once 4,000 lines wait. A
// batch that cannot be written (after the retries) is the error of every
// later Append and of Finish; the run keeps the batches before it. Close
// writes what its unfinished writers queued. Finish writes the run's case rows (streamed from
// run.EachCase into COPY, never held whole), its metrics and the final row
// in one transaction: when the case stream fails, nothing of it is kept and
// the run stays incomplete with its case lines.
//
// Load returns the record with its case rows; a run stopped before Finish
// gets its case lines instead (observations left out), as
// store.LoadRun does for files. A path REF (a run.json) is read from its
// file, whatever the store. Cases reads the case lines in Append order;
// SuiteCase reads one case the run kept by its key, SuiteCases all of
// them in the order written.
// Delete removes the row, and its lines, cases and metrics by cascade.
//
// Any number of processes may write into one database at once: each run is
// its own rows, and the only shared lock is the migration's.
package postgres
