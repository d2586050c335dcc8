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
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/assay-eval/assay/internal/shareddata"
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

// URL returns a store URL for a schema of the test's own, created now and
// dropped (with everything in it) when the test ends.
func URL(tb testing.TB) string {
	tb.Helper()
	base := BaseURL(tb)
	u, schema, err := NewSchema(base)
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

// NewSchema creates a schema with a random name in the database of base
// and returns base with search_path set to it, and the schema's name.
func NewSchema(base string) (storeURL, schema string, err error) {
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
