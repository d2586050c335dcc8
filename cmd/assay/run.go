package main

import "github.com/spf13/cobra"

func newRunCmd(env *Env) *cobra.Command {
	return &cobra.Command{Use: "run SUITE", Short: "Run a golden set against a target"}
}
