package cli

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/assay-eval/assay/harness"
)

// The inputs watched are the suite, its corpus directory (every file in
// it, not the run store inside it), its json_schema files and the target
// file; a file added, edited or removed is a change.
func TestWatchInputsAndChanges(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("suite.yaml", "assay: 1\nname: w\ncorpus: corpus/\ncases:\n  - {id: c01, query: q01, expect: {json_schema: schema.json}}\n")
	write("corpus/a.md", "# A\n\nalpha\n")
	write("schema.json", `{"type": "object"}`)
	write("target.yaml", "kind: http\nurl: http://127.0.0.1:1/ask\n")
	write("corpus/.assay/index", "x")
	p := RunPlan{Plan: harness.Plan{SuitePath: filepath.Join(dir, "suite.yaml"), Target: filepath.Join(dir, "target.yaml"), StoreDir: filepath.Join(dir, "corpus/.assay")}}
	in := watchInputs(p)
	for _, want := range []string{"suite.yaml", "corpus", "schema.json", "target.yaml"} {
		if !slices.ContainsFunc(in, func(s string) bool { return filepath.Base(filepath.Clean(s)) == want }) {
			t.Errorf("inputs %q lack %s", in, want)
		}
	}
	before := stampInputs(in, p)
	if len(changedInputs(before, stampInputs(in, p))) != 0 {
		t.Fatalf("a second look with nothing changed sees a change")
	}
	write("corpus/.assay/index", "xyz") // the store: no change
	if c := changedInputs(before, stampInputs(in, p)); len(c) != 0 {
		t.Errorf("a write to the run store is a change: %q", c)
	}
	write("corpus/b.md", "# B\n")
	write("schema.json", `{"type": "array"}`)
	future := time.Now().Add(time.Hour)
	if err := os.Chtimes(filepath.Join(dir, "target.yaml"), future, future); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "corpus/a.md")); err != nil {
		t.Fatal(err)
	}
	got := changedInputs(before, stampInputs(in, p))
	var names []string
	for _, c := range got {
		names = append(names, filepath.Base(c))
	}
	if want := []string{"a.md", "b.md", "schema.json", "target.yaml"}; !slices.Equal(names, want) {
		t.Errorf("changed = %q, want %q", names, want)
	}
}

// An edit that breaks the suite is a change of the suite alone: the corpus
// and schema it no longer lists (it does not load) are unchanged, and are
// not named. The line used to name the corpus's files ("docs/a.md,
// docs/b.md, docs/c.md and 2 more changed"), the suite among "more".
func TestWatchNamesTheSuiteThatBroke(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{"a", "b", "c", "d"} {
		write("docs/"+d+".md", "# "+d+"\n")
	}
	write("schema.json", `{"type": "object"}`)
	write("suite.yaml", "assay: 1\nname: w\ncorpus: docs/\ncases:\n  - {id: c01, query: q01, expect: {json_schema: schema.json}}\n")
	p := RunPlan{Plan: harness.Plan{SuitePath: filepath.Join(dir, "suite.yaml")}}
	before := stampInputs(watchInputs(p), p)
	if len(before) != 6 {
		t.Fatalf("watched %d files, want 6 (suite, 4 documents, schema)", len(before))
	}
	write("suite.yaml", "assay: 1\nname: w\ncorpus: docs/\ncases:\n  - {id: c01, query: q01, bogus: 1}\n")
	future := time.Now().Add(time.Hour)
	os.Chtimes(filepath.Join(dir, "suite.yaml"), future, future)
	got := changedInputs(before, lookAgain(before, p))
	if want := []string{filepath.Join(dir, "suite.yaml")}; !slices.Equal(got, want) {
		t.Errorf("changed %q, want %q", got, want)
	}
	// A document removed while the suite is broken is still a change.
	os.Remove(filepath.Join(dir, "docs/b.md"))
	got = changedInputs(before, lookAgain(before, p))
	if want := []string{filepath.Join(dir, "docs/b.md"), filepath.Join(dir, "suite.yaml")}; !slices.Equal(got, want) {
		t.Errorf("changed %q, want %q", got, want)
	}
}
