package main

import (
	"fmt"

	"github.com/assay-eval/assay/harness"
	"github.com/assay-eval/assay/store"
	"github.com/spf13/cobra"
)

// newStoreCmd is `assay store migrate|copy` (docs/store.md).
func newStoreCmd(env *Env) *cobra.Command {
	var dir string
	cmd := &cobra.Command{Use: "store migrate | copy FROM TO", Short: "Migrate a run store's schema, or copy runs between stores",
		Example: "  assay store migrate --store 'postgres://assay@db:5432/assay'\n  assay store copy .assay 'postgres://assay:${PGPASS}@db:5432/assay'"}
	migrate := &cobra.Command{Use: "migrate", Short: "Apply the schema migrations a store lacks (opening a store does it too)",
		Example: "  assay store migrate --store 'postgres://assay@db:5432/assay?sslmode=require'", Args: noArgs("assay store migrate [--store DIR|URL]"),
		RunE: func(*cobra.Command, []string) error {
			spec, _ := storeRoot(env, dir)
			m, err := harness.MigrateStore(spec, storeOptions(env, spec))
			if err == nil && len(m.Applied) == 0 {
				fmt.Fprintf(env.Stdout, "store %s: schema up to date (version %d)\n", m.Store, m.Version)
			}
			for _, a := range m.Applied {
				fmt.Fprintf(env.Stdout, "store %s: applied %s\n", m.Store, a)
			}
			return err
		}}
	migrate.Flags().StringVar(&dir, "store", "", "run store `DIR` or postgres:// URL (default $ASSAY_STORE, else .assay)")
	cp := &cobra.Command{Use: "copy FROM TO", Short: "Copy every run (with its cases) from one store into another",
		Example: "  assay store copy .assay 'postgres://assay:${PGPASS}@db:5432/assay'", Args: exactArgs(2, "assay store copy FROM TO (each a store directory or a postgres:// URL)"),
		RunE: func(_ *cobra.Command, args []string) error {
			res, err := harness.CopyStores(env.Ctx, args[0], args[1], storeOptions(env, args[1]))
			if err == nil {
				fmt.Fprintf(env.Stdout, "copied %d runs from %s to %s (%d already there)\n", len(res.Copied), store.RedactURL(args[0]), store.RedactURL(args[1]), len(res.Skipped))
			}
			return err
		}}
	cmd.AddCommand(migrate, cp)
	return cmd
}
