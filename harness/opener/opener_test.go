package opener_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/cache"
	"github.com/assay-eval/assay/harness/opener"
	"github.com/assay-eval/assay/harness/seam"
)

// Open opens a spec as package target does; a bad spec is target's error.
func TestTargetsOpen(t *testing.T) {
	s := &assay.Suite{Corpus: []assay.Document{{ID: "d1", Text: "invitation tokens are hashed with sha-256"}}}
	tgt, err := opener.Targets{}.Open("builtin", seam.TargetOptions{Suite: s})
	if err != nil {
		t.Fatal(err)
	}
	obs, err := tgt.Observe(context.Background(), assay.Case{ID: "q1", Query: "hashed tokens"})
	if err != nil || len(obs.Retrieved) == 0 || obs.Retrieved[0].ID != "d1" {
		t.Fatalf("builtin observed %+v, %v; want d1 first", obs, err)
	}
	if _, err := (opener.Targets{}).Open("buildin", seam.TargetOptions{Suite: s}); err == nil || !strings.Contains(err.Error(), `did you mean "builtin"`) {
		t.Fatalf("a mistyped spec: err = %v; want target's suggestion", err)
	}
}

// Matrix and Prices read a target file's variants: and prices:, and are
// zero for a spec that is no file.
func TestTargetsMatrixAndPrices(t *testing.T) {
	path := filepath.Join(t.TempDir(), "target.yaml")
	src := "http:\n  url: http://127.0.0.1:19541/ask\nvariants:\n  mode: [fast, slow]\nprices:\n  m1: {input: 1, output: 2}\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := opener.Targets{}.Matrix(path)
	if err != nil || len(m.Variants) != 2 || m.Variants[1]["mode"] != "slow" || len(m.Keys) != 1 {
		t.Fatalf("Matrix = %+v, %v; want the two modes", m, err)
	}
	p, err := opener.Targets{}.Prices(path)
	if err != nil || p["m1"].Output != 2 {
		t.Fatalf("Prices = %+v, %v; want m1's", p, err)
	}
	for _, spec := range []string{"builtin", "replay:trace.jsonl", "http://127.0.0.1:19541/ask"} {
		m, err := opener.Targets{}.Matrix(spec)
		p, perr := opener.Targets{}.Prices(spec)
		if err != nil || perr != nil || len(m.Variants) != 0 || p != nil {
			t.Errorf("%s: Matrix %+v %v, Prices %v %v; want zero, no file read", spec, m, err, p, perr)
		}
	}
}

// Cache wraps the kinds that call a system, and only them.
func TestTargetsCache(t *testing.T) {
	c, err := cache.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	tgt := assay.TargetFunc(func(_ context.Context, cs assay.Case) (assay.Observation, error) {
		return assay.Observation{Case: cs.ID}, nil
	})
	for kind, cached := range map[string]bool{"http": true, "command": true, "builtin": false, "replay": false} {
		got := opener.Targets{}.Cache(tgt, assay.TargetInfo{Kind: kind, Fingerprint: "sha256:aa"}, c, seam.CacheOptions{K: 10})
		if (got != nil) != cached {
			t.Errorf("kind %s: cached = %v, want %v", kind, got != nil, cached)
		}
	}
}

// Judge makes package judge's judge, and returns its error for a bad
// definition; with no cache it has none (not a nil *cache.Cache).
func TestJudge(t *testing.T) {
	j, err := opener.Judge(assay.JudgeConfig{URL: "http://127.0.0.1:19542/v1", Model: "grader-1"}, seam.JudgeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(j.Rubric()) == 0 || len(j.MetricNames()) == 0 || j.NewTally(false).Summary().Model != "grader-1" {
		t.Fatalf("judge: rubric %v, metrics %v; want the default rubric", j.Rubric(), j.MetricNames())
	}
	// Grading reaches the endpoint (nothing listens: a judge error), not
	// a nil cache.
	zero := 0
	j, err = opener.Judge(assay.JudgeConfig{URL: "http://127.0.0.1:19542/v1", Model: "grader-1", Retries: &zero}, seam.JudgeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r := assay.CaseResult{ID: "q1"}
	j.Grade(context.Background(), assay.Case{ID: "q1", Query: "x"}, &assay.Observation{Case: "q1", Answer: "a"}, nil, &r)
	if r.Judge == nil || r.Judge.Error == nil {
		t.Fatalf("judged %+v; want a judge error (nothing listens on the endpoint)", r.Judge)
	}
	if _, err := opener.Judge(assay.JudgeConfig{URL: "ftp://x", Model: "m"}, seam.JudgeOptions{}); err == nil {
		t.Fatal("a bad url made a judge")
	}
}

// Importing opener registers its Targets and Judge (its init), as a
// database/sql driver registers itself.
func TestInitRegisters(t *testing.T) {
	if _, ok := seam.RegisteredTargets().(opener.Targets); !ok {
		t.Fatalf("registered Targets = %T; want opener.Targets", seam.RegisteredTargets())
	}
	if seam.RegisteredJudge() == nil {
		t.Fatal("no judge maker registered")
	}
}
