package main

import (
	"fmt"

	"github.com/assay-eval/assay/harness"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

// newVersionCmd is `assay version`: the version --version prints, the
// module version and commit it was built from, and the Go version and
// platform.
func newVersionCmd(env *Env) *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print the version of assay, the module version and commit it was built from",
		Example: "  assay version",
		Args:    exactArgs(0, "assay version"),
		RunE: func(cmd *cobra.Command, args []string) error {
			b := harness.Build()
			fmt.Fprintf(env.Stdout, "assay version %s\n", b.Version)
			if b.Module != "" {
				fmt.Fprintf(env.Stdout, "module %s %s\n", b.Module, b.ModuleVersion)
			}
			if b.Commit != "" {
				mod := map[bool]string{true: " (modified)"}[b.Modified]
				fmt.Fprintf(env.Stdout, "commit %s%s\n", b.Commit, mod)
			}
			fmt.Fprintf(env.Stdout, "go %s %s\n", b.Go, b.Platform)
			return nil
		},
	}
}

func version() string { return harness.Build().Version }

func termIsTerminal(fd int) bool { return term.IsTerminal(fd) }
