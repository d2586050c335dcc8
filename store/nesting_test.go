package store

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/assay-eval/assay"
)

// TestDeepJSONRefused: a run record or a cases.jsonl line nested deeper
// than 1000 levels is refused with its position before it is decoded.
func TestDeepJSONRefused(t *testing.T) {
	dir := t.TempDir()
	run := filepath.Join(dir, "run.json")
	if err := os.WriteFile(run, []byte(`{"schema": "assay.run/v1",`+"\n"+`"cases": `+strings.Repeat("[", 60000)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadRun(run); err == nil || err.Error() != run+":2:1009: nested more than 1000 levels deep (the limit)" {
		t.Fatalf("run.json: got %v", err)
	}
	cases := filepath.Join(dir, "cases.jsonl")
	if err := os.WriteFile(cases, []byte(`{"id": "q1"}`+"\n"+`{"id": "q2", "checks": `+strings.Repeat("[", 60000)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := ReadCases(cases, func(assay.CaseResult) error { return nil })
	if err == nil || err.Error() != cases+":2:1023: nested more than 1000 levels deep (the limit)" {
		t.Fatalf("cases.jsonl: got %v", err)
	}
}
