package main

import (
	"fmt"

	"github.com/assay-eval/assay/cmd/assay/internal/cli"

	"github.com/assay-eval/assay/suite/schema"
	"github.com/spf13/cobra"
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
			_, err := fmt.Fprint(env.Stdout, cli.Build().Text())
			return err
		},
	}
}

// newSchemaCmd is `assay schema NAME`: a file format's JSON Schema.
func newSchemaCmd(env *Env) *cobra.Command {
	return &cobra.Command{
		Use:       "schema NAME",
		Short:     "Print the JSON Schema of a file format: suite, target (target files), floors or observation (trace lines)",
		Example:   "  assay schema suite > suite.schema.json\n  assay schema target > target.schema.json",
		Args:      exactArgs(1, "assay schema NAME"),
		ValidArgs: schema.Names(),
		RunE:      func(_ *cobra.Command, args []string) error { return cli.WriteSchema(env.Stdout, args[0]) },
	}
}
