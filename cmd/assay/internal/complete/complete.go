// Package complete registers assay's shell completions beyond file names
// on its cobra commands: run REFs for compare, gate, runs show and runs
// export and for --baseline; target kinds and target files for --target;
// gate names for --gate; format names for import's FORMAT. The lists are
// cli.Complete's; this package is only the wiring, kept out of
// cmd/assay so that the command files stay thin.
package complete

import (
	"github.com/assay-eval/assay/cmd/assay/internal/cli"
	"github.com/assay-eval/assay/store"
	"github.com/assay-eval/assay/store/sqlite"
	"github.com/spf13/cobra"
)

// StoreFunc returns the run store directory a command would read given
// its --store value (the default when empty).
type StoreFunc func(flag string) string

// args is what each command completes as its positional arguments, and
// how many of them.
var args = map[string]struct {
	what cli.Completion
	n    int
}{
	"assay compare":     {cli.CompleteRef, 2},
	"assay gate":        {cli.CompleteRef, 1},
	"assay runs show":   {cli.CompleteRef, 1},
	"assay runs export": {cli.CompleteRef, 1},
	"assay import":      {cli.CompleteFormat, 1}, // then SRC: files
}

// flags is what a flag of that name completes, on every command that has it.
var flags = map[string]cli.Completion{
	"target":   cli.CompleteTarget,
	"baseline": cli.CompleteRef,
	"failed":   cli.CompleteRef,
	"gate":     cli.CompleteGate,
}

// Register sets the completions of root and every command below it.
func Register(root *cobra.Command, storeFor StoreFunc) {
	fn := func(w cli.Completion, n int) cobra.CompletionFunc {
		return func(c *cobra.Command, args []string, s string) ([]cobra.Completion, cobra.ShellCompDirective) {
			if len(args) >= n {
				return nil, cobra.ShellCompDirectiveDefault
			}
			var dir string
			if fl := c.Flag("store"); w == cli.CompleteRef && fl != nil {
				dir = storeFor(fl.Value.String())
			}
			cands, more := cli.Complete(c.Context(), w, s, dir, store.OpenOptions{Directory: sqlite.Open, Backends: cli.Backends})
			if more {
				return cands, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
			}
			return cands, cobra.ShellCompDirectiveNoFileComp
		}
	}
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		if a, ok := args[c.CommandPath()]; ok {
			c.ValidArgsFunction = fn(a.what, a.n)
		}
		for name, w := range flags {
			if c.Flags().Lookup(name) != nil {
				_ = c.RegisterFlagCompletionFunc(name, fn(w, 1<<30))
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}
