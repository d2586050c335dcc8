package main

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// pathFlags are the flags that name a file or a directory: their help
// placeholder is FILE or DIR (REF for a run reference), on every command.
var pathFlags = map[string]string{
	"json": "FILE", "junit": "FILE", "markdown": "FILE", "badge": "FILE", "record": "FILE",
	"floors": "FILE", "output": "FILE", "trec-run": "FILE", "trec-qrels": "FILE",
	"store": "DIR", "report-dir": "DIR", "baseline": "REF",
}

// Every command's help has an Examples section, the flags that take a path
// say FILE, DIR or REF, and --json is the same flag on every command: a
// FILE, - for stdout.
func TestHelpExamplesAndPlaceholders(t *testing.T) {
	t.Parallel()
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			if sub.Hidden || sub.Name() == "help" || sub.Name() == "completion" {
				continue
			}
			if strings.TrimSpace(sub.Example) == "" {
				t.Errorf("%s --help has no Examples section", sub.CommandPath())
			}
			sub.LocalFlags().VisitAll(func(f *pflag.Flag) {
				name, usage := pflag.UnquoteUsage(f)
				if want, ok := pathFlags[f.Name]; ok && name != want {
					t.Errorf("%s --%s: placeholder %q, want %s", sub.CommandPath(), f.Name, name, want)
				}
				if f.Name == "json" && (f.Value.Type() != "string" || !strings.Contains(usage, "(- for stdout)")) {
					t.Errorf("%s --json is %s %q: want a FILE with (- for stdout), as on every command", sub.CommandPath(), f.Value.Type(), usage)
				}
			})
			walk(sub)
		}
	}
	walk(newRootCmd(&Env{}))
}
