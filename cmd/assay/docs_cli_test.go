package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/assay-eval/assay/cmd/assay/internal/cli"
	"github.com/assay-eval/assay/shard"

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

// TestCLIDocsNameEveryEnvVar checks that the Environment section of
// docs/cli.md names every variable the CLI reads: each Getenv("NAME") in
// the Go files of cmd/assay, harness and shard, the CI variables of the
// labels (cli.CILabels) and of the default shard group (shard.CIVars). The
// section says no other variable is read, so one added unlisted fails.
func TestCLIDocsNameEveryEnvVar(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	data, err := os.ReadFile(filepath.Join(root, "docs", "cli.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, envSection, _ := strings.Cut(string(data), "\n## Environment\n")
	envSection, _, _ = strings.Cut(envSection, "\n## ")
	names := map[string]string{}
	for _, l := range cli.CILabels {
		for _, v := range l.Vars {
			names[v] = "the " + l.Label + " label"
		}
	}
	for _, v := range shard.CIVars {
		names[v] = "the default shard group"
	}
	lit := regexp.MustCompile(`[Gg]etenv\("([A-Z][A-Z0-9_]*)"\)`)
	for _, dir := range []string{"cmd/assay", "harness", "shard"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for _, m := range lit.FindAllStringSubmatch(string(src), -1) {
				names[m[1]] = path
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(names) < 10 {
		t.Fatalf("found %d variables; the scan is broken", len(names))
	}
	for name, where := range names {
		if !strings.Contains(envSection, "`"+name+"`") {
			t.Errorf("docs/cli.md, Environment: $%s (read by %s) is not listed", name, where)
		}
	}
}
