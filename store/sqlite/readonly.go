package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/assay-eval/assay/store"
)

// ReadOnly reports whether the store was opened read-only.
func (s *Store) ReadOnly() bool { return s.readOnly }

// notWritable reports whether this process cannot write the store at dir:
// its directory, its runs directory or its index.
func notWritable(dir string) bool { return store.NotWritable(dir, filepath.Join(dir, DBFile)) }

// openReadOnly opens the index with mode=ro (immutable=1 when SQLite cannot
// open a WAL index read-only in an unwritable directory), and falls back to
// an index in memory built from the run files.
func openReadOnly(dir string, o store.OpenOptions) (*Store, error) {
	if fi, err := os.Stat(filepath.Join(dir, "runs")); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("store %s: read-only, and it has no runs directory", dir)
	}
	dbPath := filepath.Join(dir, DBFile)
	ctx := context.Background()
	if _, err := os.Stat(dbPath); err == nil {
		uri, err := fileURI(dbPath)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", dbPath, err)
		}
		for _, q := range []string{"?mode=ro&_busy_timeout=1000", "?mode=ro&immutable=1"} {
			db, err := sql.Open("sqlite", uri+q)
			if err != nil {
				continue
			}
			db.SetMaxOpenConns(1)
			s := &Store{root: dir, db: db, readOnly: true, waiting: o.Waiting}
			if s.indexCurrent(ctx) {
				return s, nil
			}
			db.Close()
		}
	}
	db, err := sql.Open("sqlite", "file::memory:")
	if err != nil {
		return nil, fmt.Errorf("store %s: %w", dir, err)
	}
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(0)
	s := &Store{root: dir, db: db, readOnly: true, waiting: o.Waiting}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("store %s: index in memory: %w", dir, err)
	}
	if err := s.Reindex(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// indexCurrent reports whether the opened index reads and has every
// migration this version knows.
func (s *Store) indexCurrent(ctx context.Context) bool {
	names, err := fs.Glob(migrationFS, "migrations/*.sql")
	if err != nil {
		return false
	}
	var n int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations`).Scan(&n); err != nil || n < len(names) {
		return false
	}
	return s.db.QueryRowContext(ctx, `SELECT count(*) FROM runs`).Scan(&n) == nil
}
