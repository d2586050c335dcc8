// Package pgtest gives tests a PostgreSQL store of their own: a fresh
// schema in the database of $ASSAY_TEST_POSTGRES, selected through the
// URL's search_path and dropped when the test ends, so tests running at
// once (or a test run twice) never see each other's runs.
//
// Without ASSAY_TEST_POSTGRES a test that needs it is skipped on a
// developer's machine, with the reason, and fails under CI (the rule of
// internal/shareddata: CI set to anything but "", "0" or "false"), where a
// skipped Postgres test would pass without checking anything. .ci/run
// starts a server and sets the variable.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/assay-eval/assay/internal/shareddata"
	"github.com/assay-eval/assay/store"
	"github.com/assay-eval/assay/store/postgres"
	"github.com/jackc/pgx/v5"
)

// EnvVar names the variable holding the server's URL, as in
// postgres://postgres@127.0.0.1:55432/assay_pg?sslmode=disable.
const EnvVar = "ASSAY_TEST_POSTGRES"

// BaseURL returns $ASSAY_TEST_POSTGRES, skipping the test when it is unset
// (failing it under CI).
func BaseURL(tb testing.TB) string {
	tb.Helper()
	u := os.Getenv(EnvVar)
	if u == "" {
		if shareddata.Required() {
			tb.Fatal(EnvVar + " is not set: CI must start PostgreSQL and set it (see .ci/run)")
		}
		tb.Skip(EnvVar + " is not set (the test needs a PostgreSQL server, e.g. postgres://postgres@127.0.0.1:55432/assay_pg?sslmode=disable)")
	}
	return u
}

// URL returns a store URL for a schema of the test's own, created now
// with assay's tables (as `assay store migrate` makes them) and dropped
// (with everything in it) when the test ends.
func URL(tb testing.TB) string {
	tb.Helper()
	return url1(tb, true)
}

// EmptyURL is URL without the tables: a schema as a database
// administrator hands it over, before `assay store migrate`.
func EmptyURL(tb testing.TB) string {
	tb.Helper()
	return url1(tb, false)
}

func url1(tb testing.TB, tables bool) string {
	tb.Helper()
	base := BaseURL(tb)
	newSchema := NewSchema
	if !tables {
		newSchema = NewEmptySchema
	}
	u, schema, err := newSchema(base)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := DropSchema(base, schema); err != nil {
			tb.Error(err)
		}
	})
	return u
}

// NewSchema creates a schema with a random name in the database of base,
// with assay's tables (postgres.OpenStore with Migrate), and returns base
// with search_path set to it, and the schema's name.
func NewSchema(base string) (storeURL, schema string, err error) {
	u, schema, err := NewEmptySchema(base)
	if err != nil {
		return "", "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := postgres.OpenStore(ctx, u, store.OpenOptions{Migrate: true})
	if err != nil {
		DropSchema(base, schema)
		return "", "", err
	}
	s.Close()
	return u, schema, nil
}

// NewEmptySchema is NewSchema without the tables.
func NewEmptySchema(base string) (storeURL, schema string, err error) {
	b := make([]byte, 6)
	rand.Read(b)
	schema = "assay_test_" + hex.EncodeToString(b)
	if err := exec(base, `CREATE SCHEMA `+schema); err != nil {
		return "", "", err
	}
	u, err := url.Parse(base)
	if err != nil {
		return "", "", err
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String(), schema, nil
}

// DropSchema drops schema and everything in it.
func DropSchema(base, schema string) error {
	return exec(base, `DROP SCHEMA IF EXISTS `+pgx.Identifier{schema}.Sanitize()+` CASCADE`)
}

func exec(base, sql string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, base)
	if err != nil {
		return err
	}
	defer c.Close(ctx)
	_, err = c.Exec(ctx, sql)
	return err
}

// The roles a team gives assay (docs/store.md): what each may do in the
// store's schema.
const (
	// Reader may read runs: SELECT on the tables.
	Reader = "reader"
	// Writer may record runs and prune them, and create nothing:
	// SELECT, INSERT, UPDATE on the tables and DELETE on runs (its rows'
	// lines, cases and metrics go by cascade).
	Writer = "writer"
)

// grants are the statements that give each role its rights in schema %[1]s
// to role %[2]s, as docs/store.md lists them.
var grants = map[string][]string{
	Reader: {
		`GRANT USAGE ON SCHEMA %[1]s TO %[2]s`,
		`GRANT SELECT ON ALL TABLES IN SCHEMA %[1]s TO %[2]s`,
	},
	Writer: {
		`GRANT USAGE ON SCHEMA %[1]s TO %[2]s`,
		`GRANT SELECT, INSERT, UPDATE ON ALL TABLES IN SCHEMA %[1]s TO %[2]s`,
		`GRANT DELETE ON %[1]s.runs TO %[2]s`,
	},
}

// NewRole creates (as the user of base, a superuser) a login role of kind
// Reader or Writer with the rights docs/store.md gives it in the schema of
// storeURL (whose tables exist), and returns storeURL with that role as
// its user, and a function that drops the role.
func NewRole(base, storeURL, kind string) (roleURL string, drop func() error, err error) {
	stmts, ok := grants[kind]
	if !ok {
		return "", nil, fmt.Errorf("pgtest: no role kind %q", kind)
	}
	u, err := url.Parse(storeURL)
	if err != nil {
		return "", nil, err
	}
	schema := pgx.Identifier{u.Query().Get("search_path")}.Sanitize()
	role := randomName("assay_test_" + kind + "_")
	if err := exec(base, `CREATE ROLE `+role+` LOGIN`); err != nil {
		return "", nil, err
	}
	drop = func() error { return dropRole(base, role) }
	for _, s := range stmts {
		if err := exec(base, fmt.Sprintf(s, schema, role)); err != nil {
			drop()
			return "", nil, err
		}
	}
	u.User = url.User(role)
	return u.String(), drop, nil
}

// NewOwner creates a login role that owns a new, empty schema (the role
// `assay store migrate` runs as), and returns the URL of that schema with
// that role as its user, and a function that drops both.
func NewOwner(base string) (ownerURL string, drop func() error, err error) {
	role := randomName("assay_test_owner_")
	if err := exec(base, `CREATE ROLE `+role+` LOGIN`); err != nil {
		return "", nil, err
	}
	schema := randomName("assay_test_")
	if err := exec(base, `CREATE SCHEMA `+schema+` AUTHORIZATION `+role); err != nil {
		dropRole(base, role)
		return "", nil, err
	}
	drop = func() error {
		return errors.Join(DropSchema(base, schema), dropRole(base, role))
	}
	u, err := url.Parse(base)
	if err != nil {
		drop()
		return "", nil, err
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	u.User = url.User(role)
	return u.String(), drop, nil
}

func dropRole(base, role string) error {
	if err := exec(base, `DROP OWNED BY `+role+` CASCADE`); err != nil {
		return err
	}
	return exec(base, `DROP ROLE `+role)
}

func randomName(prefix string) string {
	b := make([]byte, 6)
	rand.Read(b)
	return prefix + hex.EncodeToString(b)
}

// Exec runs one statement on the database of base (as its user).
func Exec(base, sql string) error { return exec(base, sql) }
