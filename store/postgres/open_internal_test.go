package postgres

import (
	"context"
	"strings"
	"testing"

	"github.com/assay-eval/assay/store"
	"github.com/jackc/pgx/v5/pgxpool"
)

// TestExpandURLPercentEncodes: a ${VAR} password with the characters a URL
// reserves reaches pgx as the same password.
func TestExpandURLPercentEncodes(t *testing.T) {
	pw := "p@ss:w/rd?#% +&x"
	env := map[string]string{"PW": pw, "U": "ana"}
	u, r, err := expandURL("postgres://${U}:${PW}@127.0.0.1:5432/db?sslmode=disable", func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := pgxpool.ParseConfig(u)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.ConnConfig.Password != pw || cfg.ConnConfig.User != "ana" || cfg.ConnConfig.Database != "db" {
		t.Errorf("parsed user %q password %q db %q; want ana %q db", cfg.ConnConfig.User, cfg.ConnConfig.Password, cfg.ConnConfig.Database, pw)
	}
	if got := r.String("x " + u + " " + pw + " y"); strings.Contains(got, pw) || strings.Contains(got, escape(pw)) {
		t.Errorf("redacted %q still holds the password", got)
	}
	if _, _, err := expandURL("postgres://u:${NOPE}@h/db", func(string) string { return "" }); err == nil || err.Error() != "${NOPE} in the store URL is not set" {
		t.Errorf("unset var: %v", err)
	}
	if _, _, err := expandURL("postgres://u:${NOPE}@h/db", nil); err == nil {
		t.Error("no Getenv: ${NOPE} expanded to nothing; want an error")
	}
}

// TestErrorsHoldNoPassword: what OpenStore says about a URL it cannot use
// names the store without its password, however the password was given.
func TestErrorsHoldNoPassword(t *testing.T) {
	const pw = "Zq9-secret-pw"
	env := func(k string) string {
		if k == "PW" {
			return pw
		}
		return ""
	}
	for _, u := range []string{
		"postgres://postgres:" + pw + "@127.0.0.1:notaport/db",
		"postgres://postgres:" + pw + "@127.0.0.1:1/db?sslmode=disable&connect_timeout=2",
		"postgres://postgres:${PW}@127.0.0.1:1/db?sslmode=disable&connect_timeout=2",
		"postgres://postgres@127.0.0.1:1/db?sslmode=disable&password=" + pw,
		"postgres://postgres@127.0.0.1:1/db?sslmode=bogus&password=" + pw,
	} {
		_, err := OpenStore(context.Background(), u, store.OpenOptions{Getenv: env})
		if err == nil {
			t.Errorf("%s opened", u)
			continue
		}
		if msg := err.Error(); strings.Contains(msg, pw) || !strings.HasPrefix(msg, "store postgres://[redacted]") {
			t.Errorf("error %q: want it to name the store, without the password", msg)
		}
	}
	s := &Store{name: "postgres://[redacted]@h/db", secrets: nil}
	_, r, _ := expandURL("postgres://u:${PW}@h/db", env)
	s.secrets = r
	if msg := s.errorf("server said %s", "bad password "+pw).Error(); strings.Contains(msg, pw) {
		t.Errorf("errorf kept the password: %q", msg)
	}
}
