package suite

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/internal/shareddata"
)

// TestNativeRecallOver: recall_over: relevant keeps each case's relevant
// list apart from its graded judgments (Case.Relevant); without it the list
// only merges into the judgments, as before.
func TestNativeRecallOver(t *testing.T) {
	dir := t.TempDir()
	write := func(head string) string {
		p := filepath.Join(dir, "s.yaml")
		body := "assay: 1\n" + head + "cases:\n  - id: q1\n    query: bearer token\n    relevant: [a]\n    judgments: {a: 3, b: 2}\n"
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	s, err := Load(write("gain: exponential\nrecall_over: relevant\n"))
	if err != nil {
		t.Fatal(err)
	}
	if s.RecallOver != assay.RecallOverRelevant || !slices.Equal(s.Cases[0].Relevant, []string{"a"}) {
		t.Fatalf("recall_over %q, relevant %v; want relevant, [a]", s.RecallOver, s.Cases[0].Relevant)
	}
	if s.Cases[0].Judgments["b"] != 2 {
		t.Errorf("judgments %v lost b", s.Cases[0].Judgments)
	}
	s, err = Load(write(""))
	if err != nil {
		t.Fatal(err)
	}
	if s.RecallOver != "" || s.Cases[0].Relevant != nil {
		t.Errorf("default: recall_over %q, relevant %v; want empty", s.RecallOver, s.Cases[0].Relevant)
	}
	_, err = Load(write("recall_over: everything\n"))
	if err == nil || !strings.Contains(err.Error(), `s.yaml:2:14: recall_over: unknown value "everything"`) {
		t.Errorf("bad value: err = %v", err)
	}
}

// TestGNOBenchFixture reads GNO's published `gno bench` example fixture.
func TestGNOBenchFixture(t *testing.T) {
	p := filepath.Join(shareddata.Dir(t), "seed-fixtures", "gno", "bench-fixture.example.json")
	if f := DetectFormat(p); f != FormatGNOBench {
		t.Fatalf("DetectFormat = %q, want %q", f, FormatGNOBench)
	}
	s, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Cases) != 2 || s.Defaults.K != 5 || s.Name != "Documentation retrieval smoke" {
		t.Fatalf("cases %d, k %d, name %q", len(s.Cases), s.Defaults.K, s.Name)
	}
	if c := s.Cases[0]; c.Judgments["HOW-SEARCH-WORKS.md"] != 3 || !slices.Equal(c.Relevant, []string{"HOW-SEARCH-WORKS.md"}) {
		t.Errorf("case 0: judgments %v relevant %v", c.Judgments, c.Relevant)
	}
	if c := s.Cases[1]; c.Judgments["CLI.md"] != 1 || c.Tags["collection"] != "docs" {
		t.Errorf("case 1: judgments %v tags %v", c.Judgments, c.Tags)
	}
}
