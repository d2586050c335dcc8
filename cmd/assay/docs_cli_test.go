package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// TestCLIDocsNameEveryFlag checks that docs/cli.md has a section for every
// command and names every flag of it (and of its subcommands), so a flag
// added to the CLI cannot go undocumented. assay trec parses trec_eval's
// own options and is checked by its help text instead.
func TestCLIDocsNameEveryFlag(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join(repoRoot(t), "docs", "cli.md"))
	if err != nil {
		t.Fatal(err)
	}
	sections := map[string]string{}
	for _, part := range strings.Split(string(data), "\n## ")[1:] {
		head, body, _ := strings.Cut(part, "\n")
		if name, ok := strings.CutPrefix(head, "`assay "); ok {
			sections[strings.TrimSuffix(name, "`")] = body
		}
	}
	root := newRootCmd(&Env{})
	for _, cmd := range root.Commands() {
		name := cmd.Name()
		if cmd.Hidden || name == "help" || name == "completion" || name == "version" || name == "trec" {
			continue
		}
		body, ok := sections[name]
		if !ok {
			t.Errorf("docs/cli.md has no section \"## `assay %s`\"", name)
			continue
		}
		for _, c := range append([]*cobra.Command{cmd}, cmd.Commands()...) {
			c.LocalFlags().VisitAll(func(f *pflag.Flag) {
				if f.Hidden || f.Name == "help" {
					return
				}
				if !strings.Contains(body, "--"+f.Name) {
					t.Errorf("docs/cli.md, section assay %s: flag --%s of %q is not described", name, f.Name, c.CommandPath())
				}
			})
		}
	}
}
