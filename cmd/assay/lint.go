package main

import "github.com/spf13/cobra"

func newLintCmd(env *Env) *cobra.Command {
	return &cobra.Command{Use: "lint SUITE", Short: "Check a suite without running it"}
}
