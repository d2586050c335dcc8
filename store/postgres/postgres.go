package postgres

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/redact"
	"github.com/assay-eval/assay/store"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// Store is a run store in PostgreSQL. It is safe for concurrent use, and
// any number of processes may write into one database at once.
type Store struct {
	pool    *pgxpool.Pool
	connCfg *pgx.ConnConfig // for the connections that hold a run's lock
	name    string          // the URL as shown: password redacted
	secrets *redact.Redactor
	schema  *string // current_schema()
	applied []string
	version int

	mu      sync.Mutex
	locks   map[*runLock]bool   // the runs this process is writing
	writers map[*runWriter]bool // their writers
}

var (
	_ store.Store    = (*Store)(nil)
	_ store.Migrator = (*Store)(nil)
)

// Schemes are the URL schemes of a Postgres store.
var Schemes = []string{"postgres", "postgresql"}

// Open is store.Opener for postgres:// URLs: OpenStore with a
// background context.
func Open(url string, o store.OpenOptions) (store.Store, error) {
	s, err := OpenStore(context.Background(), url, o)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// OpenStore connects to the database of url
// (postgres://USER@HOST:PORT/DB?sslmode=...; ${VAR} expanded through
// o.Getenv) and checks that its schema is the version this assay knows
// (SchemaVersion). With o.Migrate it applies the migrations the database
// lacks instead (Migrate: `assay store migrate`, the one use that needs a
// role allowed to create tables). A schema that is missing or older is an
// error that says to run `assay store migrate`; a newer one is refused.
// Errors name the store with its password redacted and wrap
// store.ErrSchema for a schema that does not match.
func OpenStore(ctx context.Context, rawURL string, o store.OpenOptions) (*Store, error) {
	expanded, secrets, err := expandURL(rawURL, o.Getenv)
	if err != nil {
		return nil, fmt.Errorf("store %s: %w", store.RedactURL(rawURL), err)
	}
	st := &Store{name: store.RedactURL(rawURL), secrets: secrets, locks: map[*runLock]bool{}, writers: map[*runWriter]bool{}}
	if u, err := url.Parse(expanded); err == nil && u.User != nil {
		if pw, ok := u.User.Password(); ok {
			st.secrets.Add(redact.Secret{Value: pw}, redact.Secret{Value: escape(pw)}, redact.Secret{Value: url.QueryEscape(pw)})
		}
	}
	cfg, err := pgxpool.ParseConfig(expanded)
	if err != nil {
		return nil, st.errorf("not a PostgreSQL connection URL: %w", err)
	}
	if cfg.ConnConfig.Password != "" {
		st.secrets.Add(redact.Secret{Value: cfg.ConnConfig.Password})
	}
	cfg.MaxConns = max(cfg.MaxConns, 8)
	st.connCfg = cfg.ConnConfig
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, st.errorf("%w", err)
	}
	st.pool = pool
	// The first connection is not retried: a wrong URL or a server that
	// is not there fails at once. Once connected, the store retries
	// (RetryWindow).
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, st.errorf("cannot connect: %w", err)
	}
	if err := pool.QueryRow(ctx, `SELECT current_schema()`).Scan(&st.schema); err != nil {
		pool.Close()
		return nil, st.errorf("%w", err)
	}
	if st.schema == nil {
		pool.Close()
		return nil, st.errorf("no schema to keep the tables in (the search_path names none that exists)")
	}
	if o.Migrate {
		_, err = st.Migrate(ctx)
	} else {
		err = st.checkSchema(ctx)
	}
	if err != nil {
		pool.Close()
		return nil, err
	}
	return st, nil
}

// SchemaVersion is the schema version this assay reads and writes: the
// number of its newest migration.
var SchemaVersion = func() int {
	v := 0
	names, _ := fs.Glob(migrationFS, "migrations/*.sql")
	for _, name := range names {
		n, _ := strconv.Atoi(strings.SplitN(path.Base(name), "_", 2)[0])
		v = max(v, n)
	}
	return v
}()

// checkSchema reads the schema version (SELECT only) and says what to do
// when it is not SchemaVersion.
func (s *Store) checkSchema(ctx context.Context) error {
	var v *int
	err := s.pool.QueryRow(ctx, `SELECT max(version) FROM schema_migrations`).Scan(&v)
	var pe *pgconn.PgError
	switch {
	case errors.As(err, &pe) && pe.Code == "42P01": // undefined_table
		return s.errorf("%w", schemaError(fmt.Sprintf("schema %s has no assay tables: create them once with `assay store migrate --store URL`, run as a role that may create tables in it", *s.schema)))
	case err != nil:
		return s.errorf("reading the schema version: %w", err)
	}
	have := 0
	if v != nil {
		have = *v
	}
	s.version = have
	return s.schemaErr(have)
}

// schemaErr is nil when version is SchemaVersion, else what to do.
func (s *Store) schemaErr(version int) error {
	switch {
	case version > SchemaVersion:
		return s.errorf("%w", schemaError(fmt.Sprintf("its schema is version %d, newer than this assay (%s) knows (version %d): use the assay release that migrated it, or a newer one", version, assay.Version, SchemaVersion)))
	case version < SchemaVersion:
		return s.errorf("%w", schemaError(fmt.Sprintf("its schema is version %d and this assay needs version %d: run `assay store migrate --store URL` as a role that may alter the tables (the store's owner), then run this again", version, SchemaVersion)))
	}
	return nil
}

// schemaError says what is wrong with a store's schema; errors.Is sees
// store.ErrSchema.
type schemaError string

func (e schemaError) Error() string { return string(e) }
func (e schemaError) Unwrap() error { return store.ErrSchema }

var varRef = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`)

// expandURL replaces each ${VAR} in u with getenv(VAR), percent-encoded
// (a password may hold '@' or '/'); an unset or empty VAR is an error
// naming it. Every expanded value is a secret of the returned Redactor.
func expandURL(u string, getenv func(string) string) (string, *redact.Redactor, error) {
	r := redact.New()
	var missing []string
	out := varRef.ReplaceAllStringFunc(u, func(m string) string {
		name := varRef.FindStringSubmatch(m)[1]
		v := ""
		if getenv != nil {
			v = getenv(name)
		}
		if v == "" {
			missing = append(missing, name)
			return m
		}
		r.Add(redact.Secret{Name: name, Value: v}, redact.Secret{Name: name, Value: escape(v)})
		return escape(v)
	})
	if len(missing) > 0 {
		return "", nil, fmt.Errorf("${%s} in the store URL is not set", missing[0])
	}
	return out, r, nil
}

// escape percent-encodes every byte of v but the unreserved ones, which
// is right anywhere in a URL (user info, host, path, query).
func escape(v string) string {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-._~", c) >= 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// errorf is an error naming the store, with every secret of its URL
// redacted from the message; errors.Is still sees what it wraps.
func (s *Store) errorf(format string, args ...any) error {
	err := fmt.Errorf(format, args...)
	return &storeError{msg: s.secrets.String("store " + s.name + ": " + err.Error()), err: err}
}

type storeError struct {
	msg string
	err error
}

func (e *storeError) Error() string { return e.msg }
func (e *storeError) Unwrap() error { return e.err }

// String is the store as it may be shown: its URL, password redacted.
func (s *Store) String() string { return s.name }

// Close closes the connections, releasing the lock of each run this
// process began and did not finish.
func (s *Store) Close() error {
	s.mu.Lock()
	writers := slices.Collect(maps.Keys(s.writers))
	s.mu.Unlock()
	for _, w := range writers {
		w.halt() // what they queued is written
	}
	s.mu.Lock()
	locks := s.locks
	s.locks = map[*runLock]bool{}
	s.mu.Unlock()
	for l := range locks {
		l.release()
	}
	s.pool.Close()
	return nil
}

// Warnings implements store.Store: a Postgres store repairs nothing.
func (s *Store) Warnings() []string { return nil }

// Migrations implements store.Migrator: the migrations Open applied (or
// Migrate, when called again) and the schema version.
func (s *Store) Migrations() (applied []string, version int) { return s.applied, s.version }

// migrationKey is the advisory lock that serialises migrations; the schema
// name is mixed in, so stores in other schemas of one database do not
// wait on each other.
const migrationKey = "assay.store.migrate:"

// Migrate applies the embedded migrations the database lacks, all in one
// transaction holding an advisory lock, so that concurrent first uses
// (eight CI jobs starting at once) apply each migration exactly once and
// the others wait for it. It returns the names it applied. A schema newer
// than this assay's is refused (store.ErrSchema), changing nothing.
func (s *Store) Migrate(ctx context.Context) ([]string, error) {
	names, err := fs.Glob(migrationFS, "migrations/*.sql")
	if err != nil {
		return nil, err
	}
	slices.Sort(names)
	var applied []string
	version := 0
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		applied, version = nil, 0
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, migrationKey+*s.schema); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
			version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
			return err
		}
		have := map[int]bool{}
		rows, err := tx.Query(ctx, `SELECT version FROM schema_migrations`)
		if err != nil {
			return err
		}
		for rows.Next() {
			var v int
			if err := rows.Scan(&v); err != nil {
				return err
			}
			have[v] = true
			version = max(version, v)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		if version > SchemaVersion {
			return s.schemaErr(version)
		}
		for _, name := range names {
			base := path.Base(name)
			v, err := strconv.Atoi(strings.SplitN(base, "_", 2)[0])
			if err != nil {
				return fmt.Errorf("migration %s: no version number", base)
			}
			if have[v] {
				continue
			}
			body, err := migrationFS.ReadFile(name)
			if err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, string(body)); err != nil {
				return fmt.Errorf("migration %s: %w", base, err)
			}
			if _, err := tx.Exec(ctx, `INSERT INTO schema_migrations (version, name) VALUES ($1, $2)`, v, base); err != nil {
				return err
			}
			applied = append(applied, base)
			version = max(version, v)
		}
		return nil
	})
	if errors.Is(err, store.ErrSchema) {
		return nil, err
	}
	if err != nil {
		return nil, s.errorf("migrations: %w", err)
	}
	s.applied = append(s.applied, applied...)
	s.version = version
	return applied, nil
}

// Begin implements store.Store: the run's row, status incomplete, with its
// record as Begin was given it. The run's lock is taken first and held
// until Finish, so Delete never removes a run that is being written.
func (s *Store) Begin(ctx context.Context, run *assay.Run) (store.RunWriter, error) {
	store.Started(run)
	if run.RunID != store.IndexText(run.RunID) {
		return nil, fmt.Errorf("run id %q is not valid UTF-8 text", run.RunID)
	}
	rec, err := record(run)
	if err != nil {
		return nil, err
	}
	lock, err := s.lockRun(ctx, run.RunID)
	if err != nil {
		return nil, s.errorf("run %s: taking its lock: %w", run.RunID, err)
	}
	err = s.retry(ctx, func(attempt int) error {
		return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
			tag, err := tx.Exec(ctx, `INSERT INTO runs (run_id, status, started_at, record) VALUES ($1, $2, $3, $4)
			ON CONFLICT (run_id) DO NOTHING`, run.RunID, string(run.Status), run.StartedAt, rec)
			if err != nil {
				return err
			}
			// A retry finds the row of an attempt whose commit was not
			// acknowledged: the lock says it is this writer's.
			if tag.RowsAffected() == 0 && attempt == 0 {
				return fmt.Errorf("run %s already exists", run.RunID)
			}
			return upsertIndex(ctx, tx, run, rec)
		})
	})
	if err != nil {
		lock.release()
		return nil, s.errorf("%w", err)
	}
	return newRunWriter(context.WithoutCancel(ctx), s, run.RunID, lock), nil
}

// record is the run document without its cases (they are rows of
// case_results), as run.json would hold it.
func record(run *assay.Run) ([]byte, error) {
	head := *run
	head.Cases, head.CaseStream = nil, nil
	return store.EncodeRun(&head)
}

// upsertIndex writes the index columns of the run's row.
func upsertIndex(ctx context.Context, tx pgx.Tx, run *assay.Run, rec []byte) error {
	sum := run.Summary
	head, headVal := store.Headline(run)
	var commit string
	var dirty bool
	if run.Git != nil {
		commit, dirty = run.Git.Commit, run.Git.Dirty
	}
	var shardGroup string
	var shardIndex, shardCount int
	if sh := run.Shard; sh != nil {
		shardGroup, shardIndex, shardCount = sh.Group, sh.Index, sh.Count
	}
	var finished *time.Time
	if !run.FinishedAt.IsZero() {
		finished = &run.FinishedAt
	}
	labels, err := store.IndexLabelsJSON(run.Labels)
	if err != nil {
		return err
	}
	_, err = tx.Exec(ctx, `UPDATE runs SET status = $2, suite_name = $3, suite_fingerprint = $4, target_kind = $5,
		target_spec = $6, started_at = $7, finished_at = $8, cases = $9, graded = $10, passed = $11, failed = $12,
		errors = $13, pass_rate = $14, headline = $15, headline_value = $16, assay_version = $17, git_commit = $18,
		git_dirty = $19, record = $20, shard_group = $21, shard_index = $22, shard_count = $23, labels = $24 WHERE run_id = $1`,
		run.RunID, string(run.Status), text(run.Suite.Name), text(run.Suite.Fingerprint), text(run.Target.Kind),
		text(run.Target.Spec), run.StartedAt, finished, sum.Cases, sum.Graded, sum.Passed, sum.Failed, sum.Errors,
		sum.PassRate, text(head), headVal, text(run.AssayVersion), text(commit), dirty, rec, text(shardGroup),
		shardIndex, shardCount, string(labels))
	return err
}

// List implements store.Store. Entries have no Path: the store keeps no
// files.
func (s *Store) List(ctx context.Context, f store.Filter) ([]store.Entry, error) {
	q := `SELECT run_id, status, suite_name, suite_fingerprint, target_kind, target_spec, started_at, finished_at,
		cases, pass_rate, headline, headline_value, shard_group, shard_index, shard_count, labels FROM runs WHERE true`
	var args []any
	if f.Suite != "" {
		args = append(args, text(f.Suite))
		q += ` AND suite_name = $` + strconv.Itoa(len(args))
	}
	if f.Status != "" {
		args = append(args, string(f.Status))
		q += ` AND status = $` + strconv.Itoa(len(args))
	}
	if f.ShardGroup != "" {
		args = append(args, text(f.ShardGroup))
		q += ` AND shard_group = $` + strconv.Itoa(len(args))
	}
	if f.NoShards {
		q += ` AND shard_count = 0`
	}
	if len(f.Labels) > 0 {
		want, err := store.IndexLabelsJSON(f.Labels)
		if err != nil {
			return nil, err
		}
		args = append(args, string(want))
		q += ` AND labels @> $` + strconv.Itoa(len(args)) + `::jsonb`
	}
	q += ` ORDER BY started_at DESC, run_id DESC`
	if f.Limit > 0 {
		args = append(args, f.Limit)
		q += ` LIMIT $` + strconv.Itoa(len(args))
	}
	var out []store.Entry
	err := s.retry(ctx, func(int) error {
		out = out[:0]
		rows, err := s.pool.Query(ctx, q, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var e store.Entry
			var status, kind, spec string
			var finished *time.Time
			var group string
			var index, count int
			var labels map[string]string
			if err := rows.Scan(&e.RunID, &status, &e.Suite, &e.Fingerprint, &kind, &spec, &e.StartedAt, &finished,
				&e.Cases, &e.PassRate, &e.Headline, &e.HeadlineValue, &group, &index, &count, &labels); err != nil {
				return err
			}
			if len(labels) > 0 {
				e.Labels = labels
			}
			if count > 0 {
				e.Shard = &assay.Shard{Index: index, Count: count, Group: group}
			}
			e.Status = assay.RunStatus(status)
			e.Target = kind
			if spec != "" {
				e.Target = spec
			}
			e.StartedAt = e.StartedAt.UTC()
			if finished != nil {
				e.FinishedAt = finished.UTC()
			}
			out = append(out, e)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, s.errorf("%w", err)
	}
	return out, nil
}

// Resolve implements store.Store (store.ResolveID).
func (s *Store) Resolve(ctx context.Context, ref string) (string, error) {
	return store.ResolveID(ctx, s, ref)
}

// Delete implements store.Store: the run's row, and by cascade its case
// lines, case rows and metrics, in one transaction that first takes the
// run's lock without waiting: a run another process is writing is not
// deleted (store.ErrInProgress).
func (s *Store) Delete(ctx context.Context, runID string) error {
	var n int64
	err := s.retry(ctx, func(int) error {
		return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
			var free bool
			if err := tx.QueryRow(ctx, `SELECT pg_try_advisory_xact_lock(hashtextextended($1, 0))`, s.runKey(runID)).Scan(&free); err != nil {
				return err
			}
			if !free {
				return fmt.Errorf("run %s: %w by another process", runID, store.ErrInProgress)
			}
			tag, err := tx.Exec(ctx, `DELETE FROM runs WHERE run_id = $1`, runID)
			n = tag.RowsAffected()
			return err
		})
	})
	if errors.Is(err, store.ErrInProgress) {
		return err
	}
	if err != nil {
		return s.errorf("%w", err)
	}
	if n == 0 {
		return fmt.Errorf("run %s: not in the store %s: %w", runID, s.name, store.ErrNotFound)
	}
	return nil
}

// Trend implements store.Store.
func (s *Store) Trend(ctx context.Context, suite, metric string, limit int) ([]store.TrendPoint, error) {
	var q string
	if metric == "pass_rate" {
		q = `SELECT r.run_id, r.started_at, r.pass_rate, r.graded FROM runs r
			WHERE r.suite_name = $1 AND r.status = 'complete' AND r.shard_count = 0 AND r.pass_rate IS NOT NULL AND $2 = 'pass_rate'`
	} else {
		q = `SELECT r.run_id, r.started_at, m.mean, m.n FROM runs r JOIN run_metrics m ON m.run_id = r.run_id
			WHERE r.suite_name = $1 AND r.status = 'complete' AND r.shard_count = 0 AND m.name = $2`
	}
	q += ` ORDER BY r.started_at DESC, r.run_id DESC`
	args := []any{text(suite), text(metric)}
	if limit > 0 {
		q += ` LIMIT $3`
		args = append(args, limit)
	}
	var out []store.TrendPoint
	err := s.retry(ctx, func(int) error {
		out = out[:0]
		rows, err := s.pool.Query(ctx, q, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var p store.TrendPoint
			if err := rows.Scan(&p.RunID, &p.StartedAt, &p.Value, &p.N); err != nil {
				return err
			}
			p.StartedAt = p.StartedAt.UTC()
			out = append(out, p)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, s.errorf("%w", err)
	}
	slices.Reverse(out)
	return out, nil
}

// text is s as an index column holds it (store.IndexText: no NUL, valid
// UTF-8, as PostgreSQL text requires), the same rule as the files store's.
func text(s string) string { return store.IndexText(s) }
