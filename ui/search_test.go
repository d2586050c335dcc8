package ui

import (
	"context"
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/harness"
	"github.com/assay-eval/assay/runner"
	"github.com/assay-eval/assay/store"
)

// searchRun stores a run whose answers hold what a search must treat
// exactly as a decoded answer: upper case, letters whose lower case is
// not ASCII, characters JSON escapes (quotes, a backslash, <, >, &, a
// newline), a case without an observation, and two trials of one case.
func searchRun(t *testing.T) (store.Store, string) {
	t.Helper()
	st := benchStore(t)
	answers := []string{
		"Tokens are HASHED with SHA-256.",
		`She said "no" \ then <b>left</b> & came back`,
		"line one\nline two",
		"ÄÖÜ GROSSE Straße İstanbul ΣΊΣΥΦΟΣ",
		"",
		"trial one says alpha",
	}
	run := &assay.Run{
		Suite:     assay.SuiteRef{Name: "search", Fingerprint: "sha256:search"},
		Target:    assay.TargetInfo{Kind: "http", Spec: "http://127.0.0.1:8088/ask"},
		Options:   assay.RunOptions{Trials: 1},
		StartedAt: time.Now().UTC(),
	}
	w, err := st.Begin(context.Background(), run)
	if err != nil {
		t.Fatal(err)
	}
	add := func(r assay.CaseResult) {
		if err := w.Append(r); err != nil {
			t.Fatal(err)
		}
		r.Observation = nil
		run.Cases = append(run.Cases, r)
	}
	pass := true
	for i, a := range answers {
		r := assay.CaseResult{ID: "c" + string(rune('a'+i)), Pass: &pass}
		if i != 4 {
			r.Observation = &assay.Observation{Case: r.ID, Answer: a}
		}
		add(r)
	}
	add(assay.CaseResult{ID: "cf", Trial: 1, Pass: &pass, Observation: &assay.Observation{Case: "cf", Answer: "trial two says BETA"}})
	run.Summary = runner.Summarize(run.Cases, nil)
	run.FinishedAt = time.Now().UTC()
	run.Status = assay.StatusComplete
	if err := w.Finish(run); err != nil {
		t.Fatal(err)
	}
	return st, run.RunID
}

// decodedMatches is what the search matched before its index: each
// case's query and each answer decoded whole, lower-cased.
func decodedMatches(t *testing.T, st Store, run *assay.Run, path, q string) []string {
	t.Helper()
	ids := map[string]bool{}
	harness.RunSuiteCases(context.Background(), st, run, path, func(c assay.Case) bool {
		if strings.Contains(strings.ToLower(c.Query), q) {
			ids[c.ID] = true
		}
		return true
	})
	err := harness.RefCases(context.Background(), st, run, path, true, func(r assay.CaseResult) error {
		if o := r.Observation; o != nil && strings.Contains(strings.ToLower(o.Answer), q) {
			ids[r.ID] = true
		}
		return nil
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	return slices.Sorted(maps.Keys(ids))
}

// TestSearchIndexMatchesDecode: a search through the run's text index
// matches exactly the cases a decode of every query and answer matches,
// for text that JSON escapes and letters whose lower case is not ASCII;
// and a later search of the run reads the index, not the run's case
// lines again.
func TestSearchIndexMatchesDecode(t *testing.T) {
	st, id := searchRun(t)
	s := newSource(st)
	ctx := context.Background()
	c, err := s.load(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	queries := []string{"hashed", "sha-256", `"no"`, `\`, "<b>", "&", "\n", "line one\nline", "äöü", "straße", "i̇stanbul", "σίσυφος",
		"trial", "beta", "alpha", "says", "nothing like this", "e", " "}
	for _, q := range queries {
		want := decodedMatches(t, st, c.run, c.path, q)
		got, err := s.textMatches(ctx, c, q)
		if err != nil {
			t.Fatal(err)
		}
		if g := slices.Sorted(maps.Keys(got)); !slices.Equal(g, want) {
			t.Errorf("q=%q: the index matched %v, a decode of every answer %v", q, g, want)
		}
	}
	for _, q := range []string{"HASHED", "ÄÖÜ", "BeTa"} {
		got, err := s.textMatches(ctx, c, q)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 {
			t.Errorf("q=%q: %d cases; the search ignores case and finds one", q, len(got))
		}
	}
	// With the case lines gone, a new search still answers: from the index.
	dir := filepath.Dir(c.path)
	for _, name := range []string{store.CasesGzFile, store.CasesFile} {
		os.Remove(filepath.Join(dir, name))
	}
	got, err := s.textMatches(ctx, c, "two")
	if err != nil {
		t.Fatalf("a new search of an indexed run read the case lines again: %v", err)
	}
	if g := slices.Sorted(maps.Keys(got)); !slices.Equal(g, []string{"cc", "cf"}) {
		t.Errorf("q=two: %v, want [cc cf]", g)
	}
}
