package main

import (
	"github.com/assay-eval/assay/cmd/assay/internal/cli"
	"github.com/spf13/cobra"
)

func newInitCmd(env *Env) *cobra.Command {
	return &cobra.Command{
		Use:   "init [DIR]",
		Short: "Write a starter suite, target file and CI workflow",
		Long: `Write into DIR (default: the current directory) a small suite (suite.yaml,
with an inline corpus, that passes its gates against the built-in target), a
target file for an HTTP system (target.yaml) and a GitHub Actions workflow
that runs the suite on pull requests with assay's action
(.github/workflows/assay.yml). init asks nothing and overwrites nothing: when
one of the files exists it writes none and names it (exit 2).`,
		Example: `  assay init
  assay init eval/`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return usageError("assay init [DIR]", "init takes at most one DIR, got %d arguments", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			p := cli.InitPlan{Stdout: env.Stdout}
			if len(args) == 1 {
				p.Dir = args[0]
			}
			return cli.Init(p)
		},
	}
}
