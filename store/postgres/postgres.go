package postgres

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/redact"
	"github.com/assay-eval/assay/store"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// Store is a run store in PostgreSQL. It is safe for concurrent use, and
// any number of processes may write into one database at once.
type Store struct {
	pool    *pgxpool.Pool
	name    string // the URL as shown: password redacted
	secrets *redact.Redactor
	applied []string
	version int
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
// o.Getenv) and applies the migrations it lacks (Migrate). Errors name the
// store with its password redacted.
func OpenStore(ctx context.Context, rawURL string, o store.OpenOptions) (*Store, error) {
	expanded, secrets, err := expandURL(rawURL, o.Getenv)
	if err != nil {
		return nil, fmt.Errorf("store %s: %w", store.RedactURL(rawURL), err)
	}
	st := &Store{name: store.RedactURL(rawURL), secrets: secrets}
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
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, st.errorf("%w", err)
	}
	st.pool = pool
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, st.errorf("cannot connect: %w", err)
	}
	if _, err := st.Migrate(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	return st, nil
}

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

// Close closes the connections.
func (s *Store) Close() error {
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
// the others wait for it. It returns the names it applied.
func (s *Store) Migrate(ctx context.Context) ([]string, error) {
	names, err := fs.Glob(migrationFS, "migrations/*.sql")
	if err != nil {
		return nil, err
	}
	slices.Sort(names)
	var applied []string
	version := 0
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var schema *string
		if err := tx.QueryRow(ctx, `SELECT current_schema()`).Scan(&schema); err != nil {
			return err
		}
		if schema == nil {
			return errors.New("no schema to create the tables in (the search_path names none that exists)")
		}
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, migrationKey+*schema); err != nil {
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
	if err != nil {
		return nil, s.errorf("migrations: %w", err)
	}
	s.applied = append(s.applied, applied...)
	s.version = version
	return applied, nil
}

// Begin implements store.Store: the run's row, status incomplete, with its
// record as Begin was given it.
func (s *Store) Begin(ctx context.Context, run *assay.Run) (store.RunWriter, error) {
	store.Started(run)
	rec, err := record(run)
	if err != nil {
		return nil, err
	}
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `INSERT INTO runs (run_id, status, started_at, record) VALUES ($1, $2, $3, $4)
			ON CONFLICT (run_id) DO NOTHING`, run.RunID, string(run.Status), run.StartedAt, rec)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return fmt.Errorf("run %s already exists", run.RunID)
		}
		return upsertIndex(ctx, tx, run, rec)
	})
	if err != nil {
		return nil, s.errorf("%w", err)
	}
	return &runWriter{s: s, id: run.RunID, ctx: context.WithoutCancel(ctx)}, nil
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
	_, err := tx.Exec(ctx, `UPDATE runs SET status = $2, suite_name = $3, suite_fingerprint = $4, target_kind = $5,
		target_spec = $6, started_at = $7, finished_at = $8, cases = $9, graded = $10, passed = $11, failed = $12,
		errors = $13, pass_rate = $14, headline = $15, headline_value = $16, assay_version = $17, git_commit = $18,
		git_dirty = $19, record = $20, shard_group = $21, shard_index = $22, shard_count = $23 WHERE run_id = $1`,
		run.RunID, string(run.Status), run.Suite.Name, run.Suite.Fingerprint, run.Target.Kind, run.Target.Spec,
		run.StartedAt, finished, sum.Cases, sum.Graded, sum.Passed, sum.Failed, sum.Errors, sum.PassRate,
		head, headVal, run.AssayVersion, commit, dirty, rec, shardGroup, shardIndex, shardCount)
	return err
}

// List implements store.Store. Entries have no Path: the store keeps no
// files.
func (s *Store) List(ctx context.Context, f store.Filter) ([]store.Entry, error) {
	q := `SELECT run_id, status, suite_name, suite_fingerprint, target_kind, target_spec, started_at, finished_at,
		cases, pass_rate, headline, headline_value, shard_group, shard_index, shard_count FROM runs WHERE true`
	var args []any
	if f.Suite != "" {
		args = append(args, f.Suite)
		q += ` AND suite_name = $` + strconv.Itoa(len(args))
	}
	if f.Status != "" {
		args = append(args, string(f.Status))
		q += ` AND status = $` + strconv.Itoa(len(args))
	}
	if f.ShardGroup != "" {
		args = append(args, f.ShardGroup)
		q += ` AND shard_group = $` + strconv.Itoa(len(args))
	}
	if f.NoShards {
		q += ` AND shard_count = 0`
	}
	q += ` ORDER BY started_at DESC, run_id DESC`
	if f.Limit > 0 {
		args = append(args, f.Limit)
		q += ` LIMIT $` + strconv.Itoa(len(args))
	}
	rows, err := s.pool.Query(ctx, q, args...)
	if err != nil {
		return nil, s.errorf("%w", err)
	}
	var out []store.Entry
	for rows.Next() {
		var e store.Entry
		var status, kind, spec string
		var finished *time.Time
		var group string
		var index, count int
		if err := rows.Scan(&e.RunID, &status, &e.Suite, &e.Fingerprint, &kind, &spec, &e.StartedAt, &finished,
			&e.Cases, &e.PassRate, &e.Headline, &e.HeadlineValue, &group, &index, &count); err != nil {
			rows.Close()
			return nil, s.errorf("%w", err)
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
	if err := rows.Err(); err != nil {
		return nil, s.errorf("%w", err)
	}
	return out, nil
}

// Resolve implements store.Store (store.ResolveID).
func (s *Store) Resolve(ctx context.Context, ref string) (string, error) {
	return store.ResolveID(ctx, s, ref)
}

// Delete implements store.Store: the run's row, and by cascade its case
// lines, case rows and metrics, in one statement.
func (s *Store) Delete(ctx context.Context, runID string) error {
	tag, err := s.pool.Exec(ctx, `DELETE FROM runs WHERE run_id = $1`, runID)
	if err != nil {
		return s.errorf("%w", err)
	}
	if tag.RowsAffected() == 0 {
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
	args := []any{suite, metric}
	if limit > 0 {
		q += ` LIMIT $3`
		args = append(args, limit)
	}
	rows, err := s.pool.Query(ctx, q, args...)
	if err != nil {
		return nil, s.errorf("%w", err)
	}
	var out []store.TrendPoint
	for rows.Next() {
		var p store.TrendPoint
		if err := rows.Scan(&p.RunID, &p.StartedAt, &p.Value, &p.N); err != nil {
			rows.Close()
			return nil, s.errorf("%w", err)
		}
		p.StartedAt = p.StartedAt.UTC()
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, s.errorf("%w", err)
	}
	slices.Reverse(out)
	return out, nil
}
