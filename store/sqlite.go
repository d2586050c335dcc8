package store

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
	"github.com/assay-eval/assay/internal/atomicfile"
	"github.com/assay-eval/assay/internal/boundedfile"
	"github.com/assay-eval/assay/redact"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// DBFile is the name of the SQLite index in the store root.
const DBFile = "assay.db"

// SQLiteStore is the default store: run files under <root>/runs and an
// SQLite index at <root>/assay.db (WAL, busy timeout, retries on
// SQLITE_BUSY), so several processes can write runs into one store.
type SQLiteStore struct {
	root     string
	db       *sql.DB
	warnings []string
	readOnly bool // opened ForReading on a store it cannot write
	waiting  func()
	waitOnce sync.Once
	applied  []string
	version  int
}

// OpenOptions adjust Open.
type OpenOptions struct {
	// Waiting, when set, is called once when the store has waited about a
	// second (WaitNotice) for another process's lock on the index: a CLI
	// says it is waiting rather than hang without a word.
	Waiting func()
	// ForReading opens the store for the commands that only read it (runs,
	// compare, gate): read-only when it cannot be written (see
	// OpenSQLite). A store opened so may refuse Begin.
	ForReading bool
	// ReadOnly opens a directory store for reading only even when it
	// could be written (assay ui): nothing is created, migrated or
	// repaired, as OpenSQLite does for a store it cannot write. A
	// directory without a runs directory is refused.
	ReadOnly bool
	// Getenv expands ${VAR} in a store URL (a password kept out of the
	// command line); nil expands nothing. Library code reads no
	// environment: the CLI passes its own.
	Getenv func(string) string
	// Migrate lets opening the store change its schema: create its tables
	// and apply the migrations it lacks (`assay store migrate`). Without
	// it a database store (Postgres) only checks that its schema is the
	// version this assay knows and says what to run when it is not, so
	// that every other command works with a role that may not create
	// tables. The files store's SQLite index is private to the store
	// directory and is always brought up to date.
	Migrate bool
	// Backends open the stores named by URL, by scheme ("postgres"):
	// package store itself opens directories only (a backend package such
	// as store/postgres imports this one). harness.OpenStore fills in every
	// backend of the module.
	Backends map[string]Opener
}

// Opener opens the store named by a URL of its scheme.
type Opener func(url string, o OpenOptions) (Store, error)

// WaitNotice is how long a busy wait on the index lasts before
// OpenOptions.Waiting is called.
const WaitNotice = time.Second

var _ Store = (*SQLiteStore)(nil)

// Open opens the run store spec, the one way a caller gets a Store:
// callers hold the interface, so a backend plugs in here without touching
// them. A spec of the form SCHEME://... (IsURL) is opened by
// o.Backends[SCHEME] (postgres://USER@HOST:PORT/DB: store/postgres); any
// other spec is a directory holding a files-and-SQLite store
// (OpenSQLite).
func Open(spec string, o OpenOptions) (Store, error) {
	if scheme, ok := urlScheme(spec); ok {
		op := o.Backends[scheme]
		if op == nil {
			known := slices.Sorted(maps.Keys(o.Backends))
			if len(known) == 0 {
				return nil, fmt.Errorf("store %s: no backend opens %s:// stores here (give a directory)", RedactURL(spec), scheme)
			}
			return nil, fmt.Errorf("store %s: unknown store scheme %q (known: %s, or a directory)", RedactURL(spec), scheme, strings.Join(known, ", "))
		}
		return op(spec, o)
	}
	s, err := OpenSQLite(spec, o)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// IsURL reports whether spec names a store by URL (SCHEME://...) rather
// than by directory.
func IsURL(spec string) bool {
	_, ok := urlScheme(spec)
	return ok
}

func urlScheme(spec string) (string, bool) {
	scheme, _, ok := strings.Cut(spec, "://")
	if !ok || len(scheme) < 2 {
		return "", false
	}
	for i, r := range scheme {
		letter := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
		if !letter && (i == 0 || !(r >= '0' && r <= '9' || r == '+' || r == '-' || r == '.')) {
			return "", false
		}
	}
	return strings.ToLower(scheme), true
}

// RedactURL is a store spec as it may be shown: a URL with its password
// (and credential-like query values) replaced (redact.URL); a directory
// as it is. A URL that does not parse is shown as its scheme only.
func RedactURL(spec string) string {
	scheme, ok := urlScheme(spec)
	if !ok {
		return spec
	}
	// ${VAR} (expanded by the backend) is not valid in every part of a
	// URL: its braces are escaped for parsing and shown as written.
	braces := strings.NewReplacer("${", "$%7B", "}", "%7D")
	u, err := url.Parse(braces.Replace(spec))
	if err != nil {
		return scheme + "://" + redact.Redacted
	}
	return strings.NewReplacer("$%7B", "${", "%7D", "}").Replace(redact.URL(u))
}

// OpenSQLite opens (creating when needed) the store rooted at dir: dir/runs/
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
func OpenSQLite(dir string, o OpenOptions) (*SQLiteStore, error) {
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

func openWritable(dir string, o OpenOptions) (*SQLiteStore, error) {
	if err := os.MkdirAll(filepath.Join(dir, "runs"), 0o755); err != nil {
		return nil, explain(dir, fmt.Errorf("store %s: %w", dir, err))
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
		return nil, explain(dir, err)
	}
	return s, nil
}

func open(dir string, o OpenOptions) (*SQLiteStore, error) {
	dbPath := filepath.Join(dir, DBFile)
	uri, err := fileURI(dbPath)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dbPath, err)
	}
	// SQLite waits up to a second for a lock itself; retry waits on (up to
	// a minute), and says once that it is waiting.
	dsn := uri + "?_busy_timeout=1000&_journal_mode=WAL&_synchronous=NORMAL&_foreign_keys=1&_txlock=immediate"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dbPath, err)
	}
	// One connection: a CLI process does not need more, and it keeps the
	// locking between processes simple.
	db.SetMaxOpenConns(1)
	s := &SQLiteStore{root: dir, db: db, waiting: o.Waiting}
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
func (s *SQLiteStore) Warnings() []string { return s.warnings }

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

// Migrations implements Migrator: the migrations Open applied to the
// index and its schema version.
func (s *SQLiteStore) Migrations() (applied []string, version int) { return s.applied, s.version }

var _ Migrator = (*SQLiteStore)(nil)

// Root is the store's directory.
func (s *SQLiteStore) Root() string { return s.root }

// Close closes the index.
func (s *SQLiteStore) Close() error { return s.db.Close() }

// migrate applies the embedded migrations not yet recorded in
// schema_migrations, each in its own immediate transaction.
func (s *SQLiteStore) migrate(ctx context.Context) error {
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
		return fmt.Errorf("%w: the index is at schema version %d, newer than this assay (%s) knows (version %d): use the assay release that wrote it, or a newer one", ErrSchema, have.Int64, assay.Version, known)
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
func (s *SQLiteStore) tx(ctx context.Context, fn func(*sql.Tx) error) error {
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
func (s *SQLiteStore) retry(ctx context.Context, fn func() error) error {
	start := time.Now()
	deadline := start.Add(time.Minute)
	wait := 5 * time.Millisecond
	for {
		err := fn()
		if err == nil || !isBusy(err) || time.Now().After(deadline) {
			return err
		}
		if s.waiting != nil && time.Since(start) >= WaitNotice*9/10 {
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

// Begin implements Store.
func (s *SQLiteStore) Begin(ctx context.Context, run *assay.Run) (RunWriter, error) {
	if s.readOnly {
		return nil, fmt.Errorf("store %s is read-only: it cannot record a run", s.root)
	}
	Started(run)
	if !validRunID(run.RunID) {
		return nil, fmt.Errorf("run id %q is not a valid directory name", run.RunID)
	}
	dir := filepath.Join(s.root, "runs", run.RunID)
	w, err := beginFiles(dir, run)
	if err != nil {
		return nil, explain(s.root, fmt.Errorf("store %s: %w", s.root, err))
	}
	if err := s.tx(ctx, func(tx *sql.Tx) error { return indexRun(ctx, tx, run, s.relDir(run.RunID), false) }); err != nil {
		// Nothing was recorded yet: leave no run behind that the index
		// does not know (a Ctrl-C before the first case came here).
		w.cases.Close()
		os.RemoveAll(dir)
		return nil, explain(s.root, fmt.Errorf("%s: %w", filepath.Join(s.root, DBFile), err))
	}
	// Finish must record an interrupted run too: Ctrl-C cancels ctx, and
	// the index row still has to say how the run ended.
	fctx := context.WithoutCancel(ctx)
	w.index = func(run *assay.Run) error {
		return s.tx(fctx, func(tx *sql.Tx) error {
			return indexRun(fctx, tx, run, s.relDir(run.RunID), true)
		})
	}
	return w, nil
}

func (s *SQLiteStore) relDir(id string) string { return filepath.ToSlash(filepath.Join("runs", id)) }

// indexRun upserts the run row (and with cases, its metric and case rows,
// read through run.EachCase one at a time).
func indexRun(ctx context.Context, tx *sql.Tx, run *assay.Run, dir string, withCases bool) error {
	sum := run.Summary
	head, headVal := Headline(run)
	var dirty int
	var commit string
	var shardGroup string
	var shardIndex, shardCount int
	if sh := run.Shard; sh != nil {
		shardGroup, shardIndex, shardCount = sh.Group, sh.Index, sh.Count
	}
	if run.Git != nil {
		commit = run.Git.Commit
		if run.Git.Dirty {
			dirty = 1
		}
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO runs (run_id, status, suite_name, suite_fingerprint, target_kind, target_spec,
		started_at, finished_at, cases, graded, passed, failed, errors, pass_rate, headline, headline_value,
		assay_version, git_commit, git_dirty, dir, shard_group, shard_index, shard_count)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (run_id) DO UPDATE SET status = excluded.status, suite_name = excluded.suite_name,
		suite_fingerprint = excluded.suite_fingerprint, target_kind = excluded.target_kind, target_spec = excluded.target_spec,
		started_at = excluded.started_at, finished_at = excluded.finished_at, cases = excluded.cases,
		graded = excluded.graded, passed = excluded.passed, failed = excluded.failed, errors = excluded.errors,
		pass_rate = excluded.pass_rate, headline = excluded.headline, headline_value = excluded.headline_value,
		assay_version = excluded.assay_version, git_commit = excluded.git_commit, git_dirty = excluded.git_dirty, dir = excluded.dir,
		shard_group = excluded.shard_group, shard_index = excluded.shard_index, shard_count = excluded.shard_count`,
		run.RunID, string(run.Status), IndexText(run.Suite.Name), IndexText(run.Suite.Fingerprint), IndexText(run.Target.Kind),
		IndexText(run.Target.Spec), fmtTime(run.StartedAt), fmtTime(run.FinishedAt), sum.Cases, sum.Graded, sum.Passed, sum.Failed,
		sum.Errors, sum.PassRate, IndexText(head), headVal, IndexText(run.AssayVersion), IndexText(commit), dirty, dir,
		IndexText(shardGroup), shardIndex, shardCount)
	if err != nil || !withCases {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM run_metrics WHERE run_id = ?`, run.RunID); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM case_results WHERE run_id = ?`, run.RunID); err != nil {
		return err
	}
	for name, m := range sum.Metrics {
		if _, err := tx.ExecContext(ctx, `INSERT INTO run_metrics (run_id, name, mean, n) VALUES (?, ?, ?, ?)`,
			run.RunID, IndexText(name), m.Mean, m.N); err != nil {
			return err
		}
	}
	stmt, err := tx.PrepareContext(ctx, `INSERT OR REPLACE INTO case_results (run_id, case_id, trial, pass, error_class, latency_ms, metrics)
		VALUES (?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer stmt.Close()
	return run.EachCase(func(c assay.CaseResult) error {
		var pass any
		if c.Pass != nil {
			pass = boolInt(*c.Pass)
		}
		var class string
		if c.Error != nil {
			class = string(c.Error.Class)
		}
		mb, err := IndexMetrics(c.Metrics)
		if err != nil {
			return err
		}
		_, err = stmt.ExecContext(ctx, run.RunID, IndexText(c.ID), c.Trial, pass, IndexText(class), c.LatencyMs, string(mb))
		return err
	})
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

// Headline picks the metric shown in listings (Entry.Headline): the first of the run's
// metric set (options, else the default set) that has a value.
func Headline(run *assay.Run) (string, *float64) {
	names := run.Options.Metrics
	if len(names) == 0 {
		names = assay.DefaultMetrics
	}
	for _, n := range names {
		if m, ok := run.Summary.Metrics[n]; ok && m.N > 0 {
			v := m.Mean
			return n, &v
		}
	}
	keys := make([]string, 0, len(run.Summary.Metrics))
	for k, m := range run.Summary.Metrics {
		if m.N > 0 {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return "", nil
	}
	sort.Strings(keys)
	v := run.Summary.Metrics[keys[0]].Mean
	return keys[0], &v
}

// Reindex brings the index in line with the run files: it indexes every
// run directory it does not know (a deleted or older database), drops the
// rows of run directories that are gone, and re-reads the runs it has as
// incomplete whose run.json says otherwise (a process that died between
// writing run.json and updating the index). Unreadable run files are
// skipped; LoadRun reports them when the run is asked for.
func (s *SQLiteStore) Reindex(ctx context.Context) error {
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
	ents, err := os.ReadDir(filepath.Join(s.root, "runs"))
	if err != nil {
		return fmt.Errorf("store %s: %w", s.root, err)
	}
	onDisk := map[string]bool{}
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		if strings.HasPrefix(e.Name(), deletingPrefix) {
			// A Delete that was killed half-way: the run was already
			// out of every listing; finish removing it (a store opened
			// read-only only leaves it out).
			if !s.readOnly {
				os.RemoveAll(filepath.Join(s.root, "runs", e.Name()))
			}
			continue
		}
		onDisk[e.Name()] = true
	}
	index := func(run *assay.Run, onlyNew bool) error {
		return s.tx(ctx, func(tx *sql.Tx) error {
			if onlyNew {
				// Another process may have indexed it since: keep its row.
				var n int
				if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM runs WHERE run_id = ?`, run.RunID).Scan(&n); err != nil || n > 0 {
					return err
				}
			}
			return indexRun(ctx, tx, run, s.relDir(run.RunID), run.Status == assay.StatusComplete)
		})
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
			sweepTemp(filepath.Join(s.root, "runs", id))
			if peekStatus(filepath.Join(s.root, "runs", id, RunFile)) != assay.StatusComplete {
				continue // still running, or stopped: nothing to update
			}
			run, err := LoadRun(filepath.Join(s.root, "runs", id))
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
		file := filepath.Join(s.root, "runs", id, RunFile)
		sweepTemp(filepath.Dir(file))
		run, err := LoadRun(file)
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

// List implements Store.
func (s *SQLiteStore) List(ctx context.Context, f Filter) ([]Entry, error) {
	q := `SELECT run_id, status, suite_name, suite_fingerprint, target_kind, target_spec, started_at, finished_at,
		cases, pass_rate, headline, headline_value, dir, shard_group, shard_index, shard_count FROM runs WHERE 1=1`
	var args []any
	if f.Suite != "" {
		q += ` AND suite_name = ?`
		args = append(args, IndexText(f.Suite))
	}
	if f.Status != "" {
		q += ` AND status = ?`
		args = append(args, string(f.Status))
	}
	if f.ShardGroup != "" {
		q += ` AND shard_group = ?`
		args = append(args, IndexText(f.ShardGroup))
	}
	if f.NoShards {
		q += ` AND shard_count = 0`
	}
	q += ` ORDER BY started_at DESC, run_id DESC`
	if f.Limit > 0 {
		q += ` LIMIT ?`
		args = append(args, f.Limit)
	}
	var out []Entry
	err := s.retry(ctx, func() error {
		out = out[:0]
		rows, err := s.db.QueryContext(ctx, q, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var e Entry
			var status, kind, spec, started, finished, dir, group string
			var index, count int
			if err := rows.Scan(&e.RunID, &status, &e.Suite, &e.Fingerprint, &kind, &spec, &started, &finished,
				&e.Cases, &e.PassRate, &e.Headline, &e.HeadlineValue, &dir, &group, &index, &count); err != nil {
				return err
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
			e.Path = filepath.Join(s.root, filepath.FromSlash(dir), RunFile)
			out = append(out, e)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(s.root, DBFile), err)
	}
	return out, nil
}

// Resolve implements Store; see ResolveRef for the rules.
func (s *SQLiteStore) Resolve(ctx context.Context, ref string) (string, error) {
	return ResolveID(ctx, s, ref)
}

// Load implements Store: ResolveRef, then LoadRun.
func (s *SQLiteStore) Load(ctx context.Context, ref string) (*assay.Run, error) {
	path, err := ResolveRef(ctx, s, ref)
	if err != nil {
		return nil, err
	}
	return LoadRun(path)
}

// RunFile implements RunFiler: the run.json of run id in this store.
func (s *SQLiteStore) RunFile(runID string) string {
	return filepath.Join(s.root, "runs", runID, RunFile)
}

// Cases implements Store: ReadCases (withObservations) or ReadResults of
// the run's directory; a run directory without a cases file has none.
func (s *SQLiteStore) Cases(ctx context.Context, runID string, withObservations bool, fn func(assay.CaseResult) error) error {
	if !validRunID(runID) {
		return fmt.Errorf("run id %q: %w", runID, ErrNotFound)
	}
	dir := filepath.Join(s.root, "runs", runID)
	if _, err := os.Stat(dir); err != nil {
		return fmt.Errorf("run %s: not in the store %s: %w", runID, s.root, ErrNotFound)
	}
	each := func(r assay.CaseResult) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		return fn(r)
	}
	read := ReadResults
	if withObservations {
		read = ReadCases
	}
	if err := read(dir, each); !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil // a run directory with run.json alone: no case lines
}

// Delete implements Store: the index rows go first (in one transaction),
// then the run's directory, so a run is never listed without its files.
// A run whose directory a live writer has locked (see lockRunDir) is not
// deleted: the error wraps ErrInProgress.
func (s *SQLiteStore) Delete(ctx context.Context, runID string) error {
	if s.readOnly {
		return fmt.Errorf("store %s is read-only: it cannot delete a run", s.root)
	}
	if !validRunID(runID) {
		return fmt.Errorf("run id %q: %w", runID, ErrNotFound)
	}
	dir := filepath.Join(s.root, "runs", runID)
	if lock, err := lockRunDir(dir); err == nil {
		defer lock.Close()
	} else if errors.Is(err, ErrInProgress) {
		return fmt.Errorf("run %s: %w", runID, err)
	}
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
		return explain(s.root, fmt.Errorf("%s: %w", filepath.Join(s.root, DBFile), err))
	}
	if _, serr := os.Stat(dir); serr != nil {
		if n == 0 {
			return fmt.Errorf("run %s: not in the store %s: %w", runID, s.root, ErrNotFound)
		}
		return nil
	}
	// The directory is renamed out of the way in one step before it is
	// removed, so a Delete killed half-way never leaves a run directory
	// missing some of its files (which Reindex would list again); Reindex
	// removes what such a Delete left.
	gone := filepath.Join(s.root, "runs", deletingPrefix+runID)
	if err := os.Rename(dir, gone); err != nil {
		return explain(s.root, fmt.Errorf("store %s: %w", s.root, err))
	}
	atomicfile.SyncDir(filepath.Dir(dir))
	if err := os.RemoveAll(gone); err != nil {
		return explain(s.root, fmt.Errorf("store %s: %w", s.root, err))
	}
	return nil
}

// deletingPrefix names a run directory that Delete is removing.
const deletingPrefix = ".deleting-"

var _ ProgressReporter = (*SQLiteStore)(nil)

// InProgress implements ProgressReporter: whether a live writer holds the
// lock of the run's directory.
func (s *SQLiteStore) InProgress(_ context.Context, runID string) bool {
	if !validRunID(runID) {
		return false
	}
	lock, err := lockRunDir(filepath.Join(s.root, "runs", runID))
	if err == nil {
		lock.Close()
	}
	return errors.Is(err, ErrInProgress)
}

// validRunID reports whether id can name a run directory.
func validRunID(id string) bool {
	return id != "" && id != "." && id != ".." && !strings.ContainsAny(id, `/\`)
}

// peekStatus reads only the status of a run.json ("" when unreadable).
func peekStatus(file string) assay.RunStatus {
	b, err := boundedfile.ReadFile(file, boundedfile.RunRecord)
	if err != nil {
		return ""
	}
	var head struct {
		Status assay.RunStatus `json:"status"`
	}
	if json.Unmarshal(b, &head) != nil {
		return ""
	}
	return head.Status
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
