package main

import (
	"fmt"

	"github.com/assay-eval/assay/harness"
	"github.com/assay-eval/assay/suite/schema"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

// newVersionCmd is `assay version`: the version --version prints, the module
// version and commit it was built from, and the Go version and platform.
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
				fmt.Fprintf(env.Stdout, "commit %s%s\n", b.Commit, map[bool]string{true: " (modified)"}[b.Modified])
			}
			fmt.Fprintf(env.Stdout, "go %s %s\n", b.Go, b.Platform)
			return nil
		},
	}
}

func newSchemaCmd(env *Env) *cobra.Command { // assay schema NAME: a format's JSON Schema

	return &cobra.Command{Use: "schema NAME", Short: "Print the JSON Schema of a file format (suite: the native suite format)",
		Example: "  assay schema suite > suite.schema.json", Args: exactArgs(1, "assay schema NAME"), ValidArgs: schema.Names(),
		RunE: func(cmd *cobra.Command, args []string) error {
			b, err := schema.Get(args[0])
			if err != nil {
				return usageError("usage: assay schema NAME", "%v", err)
			}
			_, err = env.Stdout.Write(b)
			return err
		}}
}

func version() string { return harness.Build().Version }

func termIsTerminal(fd int) bool { return term.IsTerminal(fd) }
