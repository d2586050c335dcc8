package main

import (
	"github.com/assay-eval/assay/cmd/assay/internal/cli"
	"github.com/spf13/cobra"
)

// newCacheCmd is `assay cache stats|clear` (docs/cache.md).
func newCacheCmd(env *Env) *cobra.Command {
	var dir string
	store := func() string { d, _ := storeRoot(env, dir); return d }
	cmd := &cobra.Command{
		Use:     "cache stats | clear [KIND]",
		Short:   "Show or clear the response cache under the store (judge calls, run --cache)",
		Example: "  assay cache stats\n  assay cache clear target",
		Args:    noArgs("assay cache stats | clear [KIND]"),
	}
	cmd.PersistentFlags().StringVar(&dir, "store", "", "run store `DIR` whose cache/ it is (default $ASSAY_STORE, else .assay)")
	stats := &cobra.Command{
		Use:     "stats",
		Short:   "Entries and bytes per kind",
		Example: "  assay cache stats --store .assay",
		Args:    noArgs("assay cache stats"),
		RunE:    func(*cobra.Command, []string) error { return cli.CacheStats(env.Stdout, store()) },
	}
	clearCmd := &cobra.Command{
		Use:     "clear [KIND]",
		Short:   "Remove every entry (of KIND: judge, target, embed, ...)",
		Example: "  assay cache clear judge",
		Args:    cobra.MaximumNArgs(1),
		RunE: func(_ *cobra.Command, a []string) error {
			return cli.CacheClear(env.Stdout, store(), append(a, "")[0])
		},
	}
	cmd.AddCommand(stats, clearCmd)
	return cmd
}
