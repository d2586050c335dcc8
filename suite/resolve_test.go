package suite

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/assay-eval/assay"
)

// TestJudgmentsResolveToIDs: a judgment or relevant entry keyed by a
// document's path or title is rewritten to its id, by Load and by Stream,
// with a warning; one that names several documents stays for lint.
func TestJudgmentsResolveToIDs(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"corpus/notes/kiln.md": "# Kiln firing\n\nFire slowly.\n",
		"corpus/glaze.md":      "# Glaze\n\nMix.\n",
		"corpus/glaze2.md":     "# Glaze\n\nMore.\n",
		"s.yaml": "assay: 1\ncorpus: corpus/\nrecall_over: relevant\ncases:\n" +
			"  - {id: a, query: kiln, judgments: {Kiln firing: 3, glaze.md: 1}, relevant: [Kiln firing]}\n" +
			"  - {id: b, query: glaze, relevant: [Glaze]}\n",
	}
	for p, body := range files {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, "s.yaml")
	check := func(how string, cases []assay.Case) {
		t.Helper()
		a := cases[0]
		if len(a.Judgments) != 2 || a.Judgments["notes/kiln.md"] != 3 || a.Judgments["glaze.md"] != 1 {
			t.Errorf("%s: case a judgments %v, want notes/kiln.md: 3, glaze.md: 1", how, a.Judgments)
		}
		if !slices.Equal(a.Relevant, []string{"notes/kiln.md"}) {
			t.Errorf("%s: case a relevant %v", how, a.Relevant)
		}
		if b := cases[1]; b.Judgments["Glaze"] != 1 {
			t.Errorf("%s: ambiguous case b judgments %v, want Glaze kept for lint", how, b.Judgments)
		}
	}
	s, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	check("Load", s.Cases)
	found := false
	for _, w := range s.Warnings {
		found = found || w == path+`:5: case "a": judgments: "Kiln firing" is the path or title of document "notes/kiln.md": resolved to its id`
	}
	if !found {
		t.Errorf("no resolution warning in %q", s.Warnings)
	}
	st, err := Stream(path, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []assay.Case
	if err := st.Cases(func(c assay.Case) error { got = append(got, c); return nil }); err != nil {
		t.Fatal(err)
	}
	check("Stream", got)
}

// TestLintLeakageByStemOrTitle: lint flags a query holding a judged
// document's file stem or (three-word) title, not a shorter title.
func TestLintLeakageByStemOrTitle(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"corpus/en/api-reference.md": "# API\n\nTokens.\n",
		"corpus/de/deploy.md":        "# Helm Deployment Guide\n\nHelm.\n",
		"corpus/reset.md":            "# Password Reset\n\nSettings.\n",
		"corpus/glaze.md":            "# Glaze\n\nMix.\n",
		"s.yaml": "assay: 1\ncorpus: corpus/\ncases:\n" +
			"  - {id: a, query: api-reference token, judgments: {en/api-reference.md: 3}}\n" +
			"  - {id: b, query: the helm Deployment guide, judgments: {de/deploy.md: 1}}\n" +
			"  - {id: d, query: how to do a password reset, judgments: {reset.md: 1}}\n" +
			"  - {id: c, query: glaze recipes, judgments: {glaze.md: 1}}\n",
	}
	for p, body := range files {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fs, err := Lint(filepath.Join(dir, "s.yaml"), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var leaks []string
	for _, f := range fs {
		if strings.Contains(f.Message, "leakage") {
			leaks = append(leaks, f.Message)
		}
	}
	want := []string{
		`case "a": leakage: the query contains the file stem "api-reference" of the judged document "en/api-reference.md"`,
		`case "b": leakage: the query contains the title "Helm Deployment Guide" of the judged document "de/deploy.md"`,
	}
	if !slices.Equal(leaks, want) {
		t.Errorf("leakage findings\n%q\nwant\n%q", leaks, want)
	}
}

// TestRelevantOnlyResolves: with recall_over: relevant a relevant: entry
// that is not judged resolves too, and one naming no document is a lint
// error.
func TestRelevantOnlyResolves(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"corpus/kiln.md":  "# Kiln firing\n\nFire slowly.\n",
		"corpus/glaze.md": "# Glaze notes\n\nMix.\n",
		"s.yaml": "assay: 1\ncorpus: corpus/\nrecall_over: relevant\ncases:\n" +
			"  - {id: a, query: kiln, judgments: {kiln.md: 3}, relevant: [kiln.md, Glaze notes]}\n" +
			"  - {id: b, query: kiln, judgments: {kiln.md: 3}, relevant: [nowhere.md]}\n",
	}
	for p, body := range files {
		full := filepath.Join(dir, p)
		os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, err := Load(filepath.Join(dir, "s.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Cases[0].Relevant; !slices.Equal(got, []string{"kiln.md", "glaze.md"}) {
		t.Errorf("relevant %v, want [kiln.md glaze.md]", got)
	}
	fs, err := Lint(filepath.Join(dir, "s.yaml"), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, f := range fs {
		found = found || (f.Severity == SeverityError && f.Message == `case "b": relevant: no document "nowhere.md" in the corpus`)
	}
	if !found {
		t.Errorf("no lint error for nowhere.md in %v", fs)
	}
}

// TestUnknownJudgedDocumentWarns: a relevant judgment that names no
// document of the corpus draws one warning, from Load and from Stream,
// counting them and naming where the first are; a non-relevant one
// (grade 0) scores nothing either way and is not counted.
func TestUnknownJudgedDocumentWarns(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.yaml")
	body := "assay: 1\ncorpus:\n  - {id: a, text: alpha}\ncases:\n" +
		"  - {id: q1, query: x, judgments: {zz: 2, a: 1, no: 0}}\n" +
		"  - {id: q2, query: y, relevant: [gone]}\n"
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	want := `2 relevant judgments name no document of the corpus and score as documents never retrieved: ` +
		path + `:5 (case "q1": "zz"), ` + path + `:6 (case "q2": "gone"); correct the id or remove the judgment (lint lists each)`
	s, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(s.Warnings, want) {
		t.Errorf("Load warnings %q lack %q", s.Warnings, want)
	}
	st, err := Stream(path, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(st.Suite.Warnings, want) {
		t.Errorf("Stream warnings %q lack %q", st.Suite.Warnings, want)
	}
}
