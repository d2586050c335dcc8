package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/store"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// DBFile is the name of the SQLite index in the store root.
const DBFile = "assay.db"

// Store is the default store: run files under <root>/runs and an
// SQLite index at <root>/assay.db (WAL, busy timeout, retries on
// SQLITE_BUSY), so several processes can write runs into one store.
type Store struct {
	root     string
	db       *sql.DB
	warnings []string
	readOnly bool // opened ForReading on a store it cannot write
	waiting  func()
	waitOnce sync.Once
	applied  []string
	version  int
}

var _ store.Store = (*Store)(nil)

// Open opens the store rooted at dir (OpenStore) as a store.Store: the
// store.OpenOptions.Directory of the CLI.
func Open(dir string, o store.OpenOptions) (store.Store, error) {
	s, err := OpenStore(dir, o)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// OpenStore opens (creating when needed) the store rooted at dir: dir/runs/
// and the index dir/assay.db with its migrations applied, then brings the
// index in line with the run files (Reindex). An index that is not a
// database or is corrupt is moved aside (assay.db.corrupt-TIME) and rebuilt
// from the run files, with a warning (Warnings): the files are the record.
//
// With o.ForReading it is the same when the store is writable. When it is
// not (the directory or assay.db not writable by this user, a read-only
// mount), it opens the index read-only instead: no migration, no repair,
// nothing written. An index that cannot be read that way (none yet, an
// older schema) is rebuilt in memory from the run files. ReadOnly then
// reports true, and Begin fails.
func OpenStore(dir string, o store.OpenOptions) (*Store, error) {
	if dir == "" {
		dir = ".assay"
	}
	if o.ReadOnly {
		return openReadOnly(dir, o)
	}
	if o.ForReading {
		s, err := openWritable(dir, o)
		if err == nil || !notWritable(dir) {
			return s, err
		}
		return openReadOnly(dir, o)
	}
	return openWritable(dir, o)
}

func openWritable(dir string, o store.OpenOptions) (*Store, error) {
	if err := os.MkdirAll(filepath.Join(dir, "runs"), 0o755); err != nil {
		return nil, explainAt(dir, fmt.Errorf("store %s: %w", dir, err))
	}
	s, err := open(dir, o)
	if err != nil && isCorrupt(err) {
		dbPath := filepath.Join(dir, DBFile)
		aside := fmt.Sprintf("%s.corrupt-%s", dbPath, time.Now().UTC().Format("20060102T150405"))
		if rerr := os.Rename(dbPath, aside); rerr != nil {
			return nil, err
		}
		os.Remove(dbPath + "-wal")
		os.Remove(dbPath + "-shm")
		s, err = open(dir, o)
		if err == nil {
			s.warnings = append(s.warnings, fmt.Sprintf("%s was not a usable database (moved to %s); the index was rebuilt from the run files", dbPath, aside))
		}
	}
	if err != nil {
		return nil, explainAt(dir, err)
	}
	return s, nil
}

func open(dir string, o store.OpenOptions) (*Store, error) {
	dbPath := filepath.Join(dir, DBFile)
	uri, err := fileURI(dbPath)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dbPath, err)
	}
	// SQLite waits up to a second for a lock itself; retry waits on (up to
	// a minute), and says once that it is waiting.
	// A new index is made with pages of 2 KiB rather than SQLite's 4 KiB:
	// each table and index takes at least a page whatever the number of
	// runs, so the fixed part of a store's first run is halved (about
	// 20 KB less for a 1,000-case run). An index that exists keeps its
	// page size (the pragma changes nothing then).
	dsn := uri + "?_busy_timeout=1000&_journal_mode=WAL&_synchronous=NORMAL&_foreign_keys=1&_txlock=immediate&_pragma=page_size(2048)"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dbPath, err)
	}
	// One connection: a CLI process does not need more, and it keeps the
	// locking between processes simple.
	db.SetMaxOpenConns(1)
	s := &Store{root: dir, db: db, waiting: o.Waiting}
	ctx := context.Background()
	if err := s.retry(ctx, func() error { return db.PingContext(ctx) }); err != nil {
		db.Close()
		return nil, fmt.Errorf("%s: %w", dbPath, err)
	}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("%s: %w", dbPath, err)
	}
	if err := s.Reindex(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// Warnings says what Open had to repair (data for the caller to show).
func (s *Store) Warnings() []string { return s.warnings }

// isCorrupt reports whether err says the index file is not a usable
// database.
func isCorrupt(err error) bool {
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_CORRUPT:
			return true
		}
	}
	return false
}

// Migrations implements store.Migrator: the migrations Open applied to the
// index and its schema version.
func (s *Store) Migrations() (applied []string, version int) { return s.applied, s.version }

var _ store.Migrator = (*Store)(nil)

// explain is store.Explain of the store's errors, SQLite's codes
// included.
func (s *Store) explain(err error) error { return explainAt(s.root, err) }

func explainAt(root string, err error) error { return store.Explain(root, err, sqliteKind) }

// sqliteKind classes SQLite's errors for store.Explain: a full disk, a
// read-only index, and a failure to open or map a file (what a full disk or
// an unwritable directory looks like from inside SQLite).
func sqliteKind(err error) (full, readOnly, openFailure bool) {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false, false, false
	}
	switch se.Code() & 0xff {
	case sqlite3.SQLITE_FULL:
		return true, false, false
	case sqlite3.SQLITE_READONLY:
		return false, true, true
	case sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_IOERR:
		return false, false, true
	}
	return false, false, false
}

// Root is the store's directory.
func (s *Store) Root() string { return s.root }

// Close closes the index.
func (s *Store) Close() error { return s.db.Close() }

// migrate applies the embedded migrations not yet recorded in
// schema_migrations, each in its own immediate transaction.
func (s *Store) migrate(ctx context.Context) error {
	err := s.retry(ctx, func() error {
		_, err := s.db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
			version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`)
		return err
	})
	if err != nil {
		return err
	}
	names, err := fs.Glob(migrationFS, "migrations/*.sql")
	if err != nil {
		return err
	}
	sort.Strings(names)
	known := 0
	for _, name := range names {
		v, _ := strconv.Atoi(strings.SplitN(filepath.Base(name), "_", 2)[0])
		known = max(known, v)
	}
	var have sql.NullInt64
	if err := s.retry(ctx, func() error {
		return s.db.QueryRowContext(ctx, `SELECT max(version) FROM schema_migrations`).Scan(&have)
	}); err != nil {
		return err
	}
	if int(have.Int64) > known {
		return fmt.Errorf("%w: the index is at schema version %d, newer than this assay (%s) knows (version %d): use the assay release that wrote it, or a newer one", store.ErrSchema, have.Int64, assay.Version, known)
	}
	for _, name := range names {
		base := filepath.Base(name)
		v, err := strconv.Atoi(strings.SplitN(base, "_", 2)[0])
		if err != nil {
			return fmt.Errorf("migration %s: no version number", base)
		}
		body, err := migrationFS.ReadFile(name)
		if err != nil {
			return err
		}
		did := false
		err = s.tx(ctx, func(tx *sql.Tx) error {
			did = false
			var n int
			if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations WHERE version = ?`, v).Scan(&n); err != nil {
				return err
			}
			if n > 0 {
				return nil
			}
			if _, err := tx.ExecContext(ctx, string(body)); err != nil {
				return fmt.Errorf("migration %s: %w", base, err)
			}
			_, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)`,
				v, base, time.Now().UTC().Format(time.RFC3339))
			did = err == nil
			return err
		})
		if err != nil {
			return err
		}
		if did {
			s.applied = append(s.applied, base)
		}
		s.version = max(s.version, v)
	}
	return nil
}

// tx runs fn in an immediate transaction, retrying the whole of it when
// the database is busy.
func (s *Store) tx(ctx context.Context, fn func(*sql.Tx) error) error {
	return s.retry(ctx, func() error {
		tx, err := s.db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		if err := fn(tx); err != nil {
			tx.Rollback()
			return err
		}
		return tx.Commit()
	})
}

// retry calls fn again while it fails with SQLITE_BUSY or SQLITE_LOCKED,
// with jittered backoff, for up to a minute (the busy timeout already
// waits inside SQLite; this covers the cases where SQLite returns busy
// without waiting, such as a lock upgrade in WAL mode).
func (s *Store) retry(ctx context.Context, fn func() error) error {
	start := time.Now()
	deadline := start.Add(time.Minute)
	wait := 5 * time.Millisecond
	for {
		err := fn()
		if err == nil || !isBusy(err) || time.Now().After(deadline) {
			return err
		}
		if s.waiting != nil && time.Since(start) >= store.WaitNotice*9/10 {
			s.waitOnce.Do(s.waiting)
		}
		d := wait/2 + time.Duration(rand.Int64N(int64(wait)))
		select {
		case <-ctx.Done():
			return errors.Join(err, ctx.Err())
		case <-time.After(d):
		}
		if wait < 500*time.Millisecond {
			wait *= 2
		}
	}
}

func isBusy(err error) bool {
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
			return true
		}
	}
	return false
}

// Begin implements store.Store: the run's files (store.BeginIndexed) and
// its index row, which Finish updates. The case rows are taken from the
// cases as they are appended (runIndex), not read back from the files.
func (s *Store) Begin(ctx context.Context, run *assay.Run) (store.RunWriter, error) {
	if s.readOnly {
		return nil, fmt.Errorf("store %s is read-only: it cannot record a run", s.root)
	}
	// Finish must record an interrupted run too: Ctrl-C cancels ctx, and
	// the index row still has to say how the run ended.
	x := &runIndex{s: s, ctx: ctx, fctx: context.WithoutCancel(ctx)}
	return store.BeginIndexed(s.root, run, x)
}

// runIndex is the index of one run being written (store.Indexer): its
// row from Begin, and its case rows as the cases are appended, rowsPerTx
// at a time, each batch in one transaction, so memory holds one batch
// and nothing is read back. Until Finish commits, the run's row says
// incomplete, as for a run indexed from its files (indexRun).
type runIndex struct {
	s         *Store
	ctx, fctx context.Context
	id        string
	key       int64
	rows      []any
	err       error // a batch that could not be written: Finish reads the cases instead
}

func (x *runIndex) Begin(run *assay.Run) error {
	x.id = run.RunID
	err := x.s.tx(x.ctx, func(tx *sql.Tx) error {
		var err error
		x.key, err = upsertRun(x.ctx, tx, run, x.s.relDir(run.RunID), run.Status)
		return err
	})
	if err != nil {
		return x.s.explain(fmt.Errorf("%s: %w", filepath.Join(x.s.root, DBFile), err))
	}
	return nil
}

func (x *runIndex) Add(c assay.CaseResult) {
	if x.err != nil {
		return
	}
	if x.rows, x.err = appendCaseRow(x.rows, x.key, c); x.err != nil {
		return
	}
	if len(x.rows) == rowsPerTx*caseColumns {
		x.err = x.s.tx(x.fctx, func(tx *sql.Tx) error { return insertCases(x.fctx, tx, x.rows) })
		x.rows = x.rows[:0]
	}
}

func (x *runIndex) Finish(run *assay.Run, appended bool) error {
	if !appended || x.err != nil {
		x.rows = nil
		return x.s.explain(x.s.indexRun(x.fctx, run, true, nil))
	}
	// The rows not yet written, the metrics and the final row: one
	// transaction.
	err := x.s.tx(x.fctx, func(tx *sql.Tx) error {
		if err := insertCases(x.fctx, tx, x.rows); err != nil {
			return err
		}
		return finishRun(x.fctx, tx, run, x.s.relDir(run.RunID))
	})
	x.rows = nil
	return x.s.explain(err)
}

// Release writes the rows not yet written: the run stays incomplete with
// the cases appended.
func (x *runIndex) Release() error {
	if x.err != nil || len(x.rows) == 0 {
		return nil
	}
	err := x.s.tx(x.fctx, func(tx *sql.Tx) error { return insertCases(x.fctx, tx, x.rows) })
	x.rows = nil
	return err
}

// appendCaseRow appends the caseColumns values of c's row in the run
// keyed key.
func appendCaseRow(rows []any, key int64, c assay.CaseResult) ([]any, error) {
	var pass any
	if c.Pass != nil {
		pass = boolInt(*c.Pass)
	}
	var class string
	if c.Error != nil {
		class = string(c.Error.Class)
	}
	mb, err := store.IndexMetrics(c.Metrics)
	if err != nil {
		return rows, err
	}
	return append(rows, key, store.IndexText(c.ID), c.Trial, pass, store.IndexText(class), c.LatencyMs, string(mb)), nil
}

func (s *Store) relDir(id string) string { return filepath.ToSlash(filepath.Join("runs", id)) }

// The case rows of a run are written in transactions of rowsPerTx rows
// (multi-row INSERTs of rowsPerInsert rows), so another process writing
// into the store waits no longer than one batch, and a statement is not
// paid per row.
const (
	rowsPerInsert = 100 // 7 parameters each: 700, under SQLite's 32,766
	rowsPerTx     = 5000
	caseColumns   = 7
)

// indexRun upserts the run's row, and with cases its metric and case rows
// (read through run.EachCase one at a time, in batches of rowsPerTx).
// Until the last transaction commits, the row of a run indexed with its
// cases says incomplete: a process killed half-way leaves a run that no
// REF names and that Reindex indexes again from its run.json, never one
// listed complete with part of its rows. first, when set, runs in the
// first transaction and may say to write nothing (another process indexed
// the run).
func (s *Store) indexRun(ctx context.Context, run *assay.Run, withCases bool, first func(*sql.Tx) (bool, error)) error {
	dir := s.relDir(run.RunID)
	skip := false
	var key int64
	err := s.tx(ctx, func(tx *sql.Tx) error {
		if first != nil {
			var err error
			if skip, err = first(tx); skip || err != nil {
				return err
			}
		}
		if !withCases {
			_, err := upsertRun(ctx, tx, run, dir, run.Status)
			return err
		}
		var err error
		if key, err = upsertRun(ctx, tx, run, dir, assay.StatusIncomplete); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM run_metrics WHERE run_id = ?`, run.RunID); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM case_rows WHERE run_key = ?`, key)
		return err
	})
	if err != nil || skip || !withCases {
		return err
	}
	rows := make([]any, 0, rowsPerTx*caseColumns)
	flush := func() error {
		if len(rows) == 0 {
			return nil
		}
		err := s.tx(ctx, func(tx *sql.Tx) error { return insertCases(ctx, tx, rows) })
		rows = rows[:0]
		return err
	}
	err = run.EachCase(func(c assay.CaseResult) error {
		var err error
		if rows, err = appendCaseRow(rows, key, c); err != nil {
			return err
		}
		if len(rows) == rowsPerTx*caseColumns {
			return flush()
		}
		return nil
	})
	if err == nil {
		err = flush()
	}
	if err != nil {
		return err
	}
	return s.tx(ctx, func(tx *sql.Tx) error { return finishRun(ctx, tx, run, dir) })
}

// finishRun writes the run's metrics and its row with its final status.
func finishRun(ctx context.Context, tx *sql.Tx, run *assay.Run, dir string) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM run_metrics WHERE run_id = ?`, run.RunID); err != nil {
		return err
	}
	for name, m := range run.Summary.Metrics {
		if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO run_metrics (run_id, name, mean, n) VALUES (?, ?, ?, ?)`,
			run.RunID, store.IndexText(name), m.Mean, m.N); err != nil {
			return err
		}
	}
	_, err := upsertRun(ctx, tx, run, dir, run.Status)
	return err
}

// insertCases inserts case rows (caseColumns values each) rowsPerInsert
// at a time.
func insertCases(ctx context.Context, tx *sql.Tx, rows []any) error {
	const head = `INSERT OR REPLACE INTO case_rows (run_key, case_id, trial, pass, error_class, latency_ms, metrics) VALUES `
	values := func(n int) string {
		return strings.TrimSuffix(strings.Repeat("(?, ?, ?, ?, ?, ?, ?), ", n), ", ")
	}
	var full *sql.Stmt
	defer func() {
		if full != nil {
			full.Close()
		}
	}()
	for len(rows) > 0 {
		n := min(len(rows)/caseColumns, rowsPerInsert)
		chunk := rows[:n*caseColumns]
		rows = rows[n*caseColumns:]
		var err error
		if n == rowsPerInsert {
			if full == nil {
				if full, err = tx.PrepareContext(ctx, head+values(n)); err != nil {
					return err
				}
			}
			_, err = full.ExecContext(ctx, chunk...)
		} else {
			_, err = tx.ExecContext(ctx, head+values(n), chunk...)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// upsertRun writes the index row of run, with status, and returns the
// run's key (runs.run_key: the next after the largest, given once).
func upsertRun(ctx context.Context, tx *sql.Tx, run *assay.Run, dir string, status assay.RunStatus) (int64, error) {
	sum := run.Summary
	head, headVal := store.Headline(run)
	var dirty int
	var commit string
	var shardGroup string
	var shardIndex, shardCount int
	if sh := run.Shard; sh != nil {
		shardGroup, shardIndex, shardCount = sh.Group, sh.Index, sh.Count
	}
	labels, err := store.IndexLabelsJSON(run.Labels)
	if err != nil {
		return 0, err
	}
	if run.Git != nil {
		commit = run.Git.Commit
		if run.Git.Dirty {
			dirty = 1
		}
	}
	var key int64
	err = tx.QueryRowContext(ctx, `INSERT INTO runs (run_id, status, suite_name, suite_fingerprint, target_kind, target_spec,
		started_at, finished_at, cases, graded, passed, failed, errors, pass_rate, headline, headline_value,
		assay_version, git_commit, git_dirty, dir, shard_group, shard_index, shard_count, labels, run_key)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,
		(SELECT ifnull(max(run_key), 0) + 1 FROM runs))
		ON CONFLICT (run_id) DO UPDATE SET status = excluded.status, suite_name = excluded.suite_name,
		suite_fingerprint = excluded.suite_fingerprint, target_kind = excluded.target_kind, target_spec = excluded.target_spec,
		started_at = excluded.started_at, finished_at = excluded.finished_at, cases = excluded.cases,
		graded = excluded.graded, passed = excluded.passed, failed = excluded.failed, errors = excluded.errors,
		pass_rate = excluded.pass_rate, headline = excluded.headline, headline_value = excluded.headline_value,
		assay_version = excluded.assay_version, git_commit = excluded.git_commit, git_dirty = excluded.git_dirty, dir = excluded.dir,
		shard_group = excluded.shard_group, shard_index = excluded.shard_index, shard_count = excluded.shard_count,
		labels = excluded.labels
		RETURNING run_key`,
		run.RunID, string(status), store.IndexText(run.Suite.Name), store.IndexText(run.Suite.Fingerprint), store.IndexText(run.Target.Kind),
		store.IndexText(run.Target.Spec), fmtTime(run.StartedAt), fmtTime(run.FinishedAt), sum.Cases, sum.Graded, sum.Passed, sum.Failed,
		sum.Errors, sum.PassRate, store.IndexText(head), headVal, store.IndexText(run.AssayVersion), store.IndexText(commit), dirty, dir,
		store.IndexText(shardGroup), shardIndex, shardCount, string(labels)).Scan(&key)
	return key, err
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// fmtTime writes times so that they sort as text.
func fmtTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2006-01-02T15:04:05.000000000Z")
}

func parseTime(s string) time.Time {
	t, _ := time.Parse(time.RFC3339Nano, s)
	return t
}

// Reindex brings the index in line with the run files: it indexes every
// run directory it does not know (a deleted or older database), drops the
// rows of run directories that are gone, and re-reads the runs it has as
// incomplete whose run.json says otherwise (a process that died between
// writing run.json and updating the index). Unreadable run files are
// skipped; store.LoadRun reports them when the run is asked for.
func (s *Store) Reindex(ctx context.Context) error {
	// Rows first, then the directory: Begin creates the directory before
	// the row, so every row read here has its directory in the listing.
	known := map[string]assay.RunStatus{}
	err := s.query(ctx, `SELECT run_id, status FROM runs`, nil, func(rows *sql.Rows) error {
		var id, status string
		if err := rows.Scan(&id, &status); err != nil {
			return err
		}
		known[id] = assay.RunStatus(status)
		return nil
	})
	if err != nil {
		return err
	}
	// A Delete that was killed half-way: the run was already out of
	// every listing; its directory is removed (a store opened read-only
	// only leaves it out).
	onDisk, err := store.RunDirs(s.root, !s.readOnly)
	if err != nil {
		return err
	}
	index := func(run *assay.Run, onlyNew bool) error {
		var first func(*sql.Tx) (bool, error)
		if onlyNew {
			first = func(tx *sql.Tx) (bool, error) {
				// Another process may have indexed it since: keep its row.
				var n int
				err := tx.QueryRowContext(ctx, `SELECT count(*) FROM runs WHERE run_id = ?`, run.RunID).Scan(&n)
				return n > 0, err
			}
		}
		return s.indexRun(ctx, run, run.Status == assay.StatusComplete, first)
	}
	for id, status := range known {
		switch {
		case !onDisk[id]:
			// The directory is created before the row, so a row without
			// one is a run that was deleted, not one being written.
			err := s.tx(ctx, func(tx *sql.Tx) error {
				_, err := tx.ExecContext(ctx, `DELETE FROM runs WHERE run_id = ?`, id)
				return err
			})
			if err != nil {
				return fmt.Errorf("%s: %w", filepath.Join(s.root, DBFile), err)
			}
		case status == assay.StatusIncomplete:
			// Running, stopped or killed: a killed writer's temporary
			// files go (a live writer's are locked and stay).
			store.SweepTemp(filepath.Join(s.root, "runs", id))
			if store.PeekStatus(filepath.Join(s.root, "runs", id, store.RunFile)) != assay.StatusComplete {
				continue // still running, or stopped: nothing to update
			}
			run, err := store.LoadRun(filepath.Join(s.root, "runs", id))
			if err != nil || run.RunID != id || run.Status == assay.StatusIncomplete {
				continue
			}
			if err := index(run, false); err != nil {
				return fmt.Errorf("%s: %w", filepath.Join(s.root, DBFile), err)
			}
		}
	}
	for _, id := range slices.Sorted(maps.Keys(onDisk)) {
		if _, ok := known[id]; ok {
			continue
		}
		file := filepath.Join(s.root, "runs", id, store.RunFile)
		store.SweepTemp(filepath.Dir(file))
		run, err := store.LoadRun(file)
		if err != nil || run.RunID != id {
			// A directory with no run.json yet is a run being begun; one
			// whose run.json does not read is damaged: say so, rather
			// than leave it out of every listing without a word.
			if _, serr := os.Stat(file); serr == nil {
				if err == nil {
					err = fmt.Errorf("its run_id is %q", run.RunID)
				}
				s.warnings = append(s.warnings, fmt.Sprintf("runs/%s is not listed: %v", id, err))
			}
			continue
		}
		if err := index(run, true); err != nil {
			return fmt.Errorf("%s: %w", filepath.Join(s.root, DBFile), err)
		}
	}
	return nil
}

// List implements store.Store.
func (s *Store) List(ctx context.Context, f store.Filter) ([]store.Entry, error) {
	return s.list(ctx, f, "")
}

// ListPrefix implements store.PrefixLister: the index's rows whose run id
// starts with prefix.
func (s *Store) ListPrefix(ctx context.Context, prefix string) ([]store.Entry, error) {
	return s.list(ctx, store.Filter{}, prefix)
}

var _ store.PrefixLister = (*Store)(nil)

// list is List of the runs whose id starts with prefix ("": every run).
func (s *Store) list(ctx context.Context, f store.Filter, prefix string) ([]store.Entry, error) {
	q := `SELECT run_id, status, suite_name, suite_fingerprint, target_kind, target_spec, started_at, finished_at,
		cases, pass_rate, headline, headline_value, dir, shard_group, shard_index, shard_count, labels FROM runs WHERE 1=1`
	var args []any
	if prefix != "" {
		// instr is 1 exactly when run_id starts with prefix (a byte-wise
		// comparison, as strings.HasPrefix; LIKE would fold case and
		// read _ and % as patterns).
		q += ` AND instr(run_id, ?) = 1`
		args = append(args, prefix)
	}
	if f.Suite != "" {
		q += ` AND suite_name = ?`
		args = append(args, store.IndexText(f.Suite))
	}
	if f.Status != "" {
		q += ` AND status = ?`
		args = append(args, string(f.Status))
	}
	if f.ShardGroup != "" {
		q += ` AND shard_group = ?`
		args = append(args, store.IndexText(f.ShardGroup))
	}
	if f.NoShards {
		q += ` AND shard_count = 0`
	}
	for _, k := range slices.Sorted(maps.Keys(f.Labels)) {
		q += ` AND EXISTS (SELECT 1 FROM json_each(runs.labels) AS l WHERE l.key = ? AND l.value = ?)`
		args = append(args, store.IndexText(k), store.IndexText(f.Labels[k]))
	}
	q += ` ORDER BY started_at DESC, run_id DESC`
	if f.Limit > 0 {
		q += ` LIMIT ?`
		args = append(args, f.Limit)
	}
	var out []store.Entry
	err := s.retry(ctx, func() error {
		out = out[:0]
		rows, err := s.db.QueryContext(ctx, q, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var e store.Entry
			var status, kind, spec, started, finished, dir, group, labels string
			var index, count int
			if err := rows.Scan(&e.RunID, &status, &e.Suite, &e.Fingerprint, &kind, &spec, &started, &finished,
				&e.Cases, &e.PassRate, &e.Headline, &e.HeadlineValue, &dir, &group, &index, &count, &labels); err != nil {
				return err
			}
			if labels != "{}" && labels != "" {
				if err := json.Unmarshal([]byte(labels), &e.Labels); err != nil {
					return fmt.Errorf("run %s: labels: %w", e.RunID, err)
				}
			}
			if count > 0 {
				e.Shard = &assay.Shard{Index: index, Count: count, Group: group}
			}
			e.Status = assay.RunStatus(status)
			e.Target = kind
			if spec != "" {
				e.Target = spec
			}
			e.StartedAt = parseTime(started)
			e.FinishedAt = parseTime(finished)
			e.Path = filepath.Join(s.root, filepath.FromSlash(dir), store.RunFile)
			out = append(out, e)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(s.root, DBFile), err)
	}
	return out, nil
}

// Resolve implements store.Store; see store.ResolveRef for the rules.
func (s *Store) Resolve(ctx context.Context, ref string) (string, error) {
	return store.ResolveID(ctx, s, ref)
}

// Load implements store.Store: store.ResolveRef, then store.LoadRun.
func (s *Store) Load(ctx context.Context, ref string) (*assay.Run, error) {
	path, err := store.ResolveRef(ctx, s, ref)
	if err != nil {
		return nil, err
	}
	return store.LoadRun(path)
}

// RunFile implements store.RunFiler: the run.json of run id in this store.
func (s *Store) RunFile(runID string) string {
	return filepath.Join(s.root, "runs", runID, store.RunFile)
}

// Cases implements store.Store (store.RunCases).
func (s *Store) Cases(ctx context.Context, runID string, withObservations bool, fn func(assay.CaseResult) error) error {
	return store.RunCases(ctx, s.root, runID, withObservations, fn)
}

// CaseTrials implements store.CaseReader (store.RunCase).
func (s *Store) CaseTrials(ctx context.Context, runID, id string, withObservations bool, fn func(assay.CaseResult) error) error {
	return store.RunCase(ctx, s.root, runID, id, withObservations, fn)
}

var _ store.SuiteCaseReader = (*Store)(nil)

// SuiteCase implements store.SuiteCaseReader (store.RunSuiteCase).
func (s *Store) SuiteCase(ctx context.Context, runID, id string) (*assay.Case, error) {
	return store.RunSuiteCase(ctx, s.root, runID, id)
}

// SuiteCases implements store.SuiteCaseReader (store.RunSuiteCases).
func (s *Store) SuiteCases(ctx context.Context, runID string, fn func(assay.Case) error) error {
	return store.RunSuiteCases(ctx, s.root, runID, fn)
}

// Delete implements store.Store (store.RemoveRun): the index rows go
// first (in one transaction), then the run's directory, so a run is never
// listed without its files. A run whose directory a live writer has
// locked is not deleted: the error wraps store.ErrInProgress.
func (s *Store) Delete(ctx context.Context, runID string) error {
	if s.readOnly {
		return fmt.Errorf("store %s is read-only: it cannot delete a run", s.root)
	}
	return store.RemoveRun(s.root, runID, func() (bool, error) {
		var n int64
		err := s.tx(ctx, func(tx *sql.Tx) error {
			res, err := tx.ExecContext(ctx, `DELETE FROM runs WHERE run_id = ?`, runID)
			if err != nil {
				return err
			}
			n, err = res.RowsAffected()
			return err
		})
		if err != nil {
			return false, s.explain(fmt.Errorf("%s: %w", filepath.Join(s.root, DBFile), err))
		}
		return n > 0, nil
	})
}

var _ store.ProgressReporter = (*Store)(nil)
var _ store.CaseReader = (*Store)(nil)

// InProgress implements store.ProgressReporter (store.RunInProgress).
func (s *Store) InProgress(_ context.Context, runID string) bool {
	return store.RunInProgress(s.root, runID)
}

// fileURI is the SQLite URI of a file: its absolute path with every
// segment percent-encoded, so that '?', '#', '%' and spaces in directory
// names reach SQLite as written.
func fileURI(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	segs := strings.Split(filepath.ToSlash(abs), "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return "file:" + strings.Join(segs, "/"), nil
}
