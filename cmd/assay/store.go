package main

import (
	"fmt"
	"path/filepath"

	"github.com/assay-eval/assay/cmd/assay/internal/cli"

	"github.com/assay-eval/assay/report"
	"github.com/assay-eval/assay/store"
	"github.com/assay-eval/assay/store/sqlite"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// The one way commands find and open the run store: a --store flag
// (storeFlagVar), resolved by cli.StoreRoot, opened with storeOptions.

// storeFlagVar registers the --store flag of a command that reads or
// writes the run store.
func storeFlagVar(fs *pflag.FlagSet, p *string) {
	fs.StringVar(p, "store", "", "run store `DIR` (default $ASSAY_STORE, else .assay)")
}

// storeRoot is the store of a --store value (cli.StoreRoot).
func storeRoot(env *Env, flag string) (dir string, explicit bool) {
	return cli.StoreRoot(flag, env.Getenv)
}

// storeFlag is the store of a --store value and its options: what a
// command hands a harness plan.
func storeFlag(env *Env, flag string) (string, store.OpenOptions) {
	dir, _ := storeRoot(env, flag)
	return dir, storeOptions(env, dir)
}

// storeOptions are the store options of every command: a directory is
// the run files with their SQLite index (store/sqlite), a postgres:// URL
// is the Postgres store (cli.Backends), and one line goes
// to stderr when the index has been locked by another process for about
// a second.
func storeOptions(env *Env, dir string) store.OpenOptions {
	return store.OpenOptions{Getenv: env.Getenv, Directory: sqlite.Open, Backends: cli.Backends, Waiting: func() {
		fmt.Fprintf(env.Stderr, "assay: waiting for the lock on %s (another assay process is writing to the store)\n", filepath.Join(dir, sqlite.DBFile))
	}}
}

// openRefStore opens the run store when one of refs needs it (anything
// but a path; cli.OpenRefStore); paths work with no store at all. It
// prints what the store had to repair.
func openRefStore(env *Env, flag string, refs ...string) (store.Store, func(), error) {
	dir, o := storeFlag(env, flag)
	st, err := cli.OpenRefStore(dir, o, refs...)
	if err != nil || st == nil {
		return nil, func() {}, err
	}
	report.Warnings(env.Stderr, st.Warnings())
	return st, func() { st.Close() }, nil
}

// newStoreCmd is `assay store migrate|copy` (docs/store.md).
func newStoreCmd(env *Env) *cobra.Command {
	var dir string
	cmd := &cobra.Command{
		Use:     "store migrate | copy FROM TO",
		Short:   "Migrate a run store's schema, or copy runs between stores",
		Example: "  assay store migrate --store 'postgres://assay@db:5432/assay'\n  assay store copy .assay 'postgres://assay:${PGPASS}@db:5432/assay'",
	}
	migrate := &cobra.Command{
		Use:     "migrate",
		Short:   "Apply the schema migrations a store lacks (the one command that changes a Postgres schema)",
		Example: "  assay store migrate --store 'postgres://assay@db:5432/assay?sslmode=require'",
		Args:    noArgs("assay store migrate [--store DIR|URL]"),
		RunE: func(*cobra.Command, []string) error {
			m, err := cli.MigrateStore(storeFlag(env, dir))
			if err != nil {
				return err
			}
			return m.WriteText(env.Stdout)
		},
	}
	migrate.Flags().StringVar(&dir, "store", "", "run store `DIR` or postgres:// URL (default $ASSAY_STORE, else .assay)")
	cp := &cobra.Command{
		Use:     "copy FROM TO",
		Short:   "Copy every run (with its cases) from one store into another, verifying each; run again to finish a stopped copy",
		Example: "  assay store copy .assay 'postgres://assay:${PGPASS}@db:5432/assay'",
		Args:    exactArgs(2, "assay store copy FROM TO (each a store directory or a postgres:// URL)"),
		RunE: func(_ *cobra.Command, args []string) error {
			res, err := cli.CopyStores(env.Ctx, args[0], args[1], storeOptions(env, args[1]))
			if err != nil {
				return err
			}
			return cli.WriteCopied(env.Stdout, args[0], args[1], res)
		},
	}
	cmd.AddCommand(migrate, cp)
	return cmd
}
