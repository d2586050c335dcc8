package gate

import (
	"strings"
	"testing"

	"github.com/assay-eval/assay"
)

func TestParseNoNewFailuresStrict(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"no_new_failures(strict)", "no_new_failures(strict)"},
		{"NO_NEW_FAILURES( strict ) [lang=en]", "no_new_failures(strict) [lang=en]"},
		{"no_new_failures", "no_new_failures"},
	} {
		e, err := Parse(c.in, "test")
		if err != nil {
			t.Fatalf("Parse(%q): %v", c.in, err)
		}
		if got := e.String(); got != c.want {
			t.Fatalf("Parse(%q).String() = %q, want %q", c.in, got, c.want)
		}
	}
	for _, bad := range []string{"no_new_failures(lenient)", "no_new_failures(strict", "no_new_failures(strict) x"} {
		if _, err := Parse(bad, "test"); err == nil {
			t.Fatalf("Parse(%q) succeeded, want an error", bad)
		}
	}
}

func flipRuns(kind string) (base, cand *assay.Run) {
	mk := func(id string, pass ...bool) *assay.Run {
		r := &assay.Run{RunID: id, Status: assay.StatusComplete, Suite: assay.SuiteRef{Name: "s", Fingerprint: "sha256:s"},
			Target: assay.TargetInfo{Kind: kind}}
		for i, p := range pass {
			r.Cases = append(r.Cases, assay.CaseResult{ID: string(rune('a' + i)), Pass: &p})
		}
		return r
	}
	return mk("b", true, true, true, false), mk("c", true, false, true, false)
}

func TestNoNewFailuresWeighsFlips(t *testing.T) {
	weighed, _ := Parse("no_new_failures", "test")
	strict, _ := Parse("no_new_failures(strict)", "test")
	t.Run("a deterministic target's flip fails both", func(t *testing.T) {
		b, c := flipRuns("builtin")
		v := EvaluateExprs([]Expr{weighed, strict}, c, b)
		for _, r := range v.Results {
			if r.Pass || r.Detail != "pass -> fail: b" {
				t.Fatalf("%s: pass %v, detail %q", r.Expr, r.Pass, r.Detail)
			}
		}
	})
	t.Run("a flip of unknown noise holds unless strict", func(t *testing.T) {
		b, c := flipRuns("http")
		v := EvaluateExprs([]Expr{weighed, strict}, c, b)
		if r := v.Results[0]; !r.Pass || !strings.Contains(r.Detail, "not confirmed") || !strings.Contains(r.Detail, "--trials 3") {
			t.Fatalf("no_new_failures: pass %v, detail %q", r.Pass, r.Detail)
		}
		if r := v.Results[1]; r.Pass || r.Detail != "pass -> fail: b" {
			t.Fatalf("no_new_failures(strict): pass %v, detail %q", r.Pass, r.Detail)
		}
	})
	t.Run("two stable earlier runs make it deterministic", func(t *testing.T) {
		b, c := flipRuns("http")
		h1, _ := flipRuns("http")
		h2, _ := flipRuns("http")
		h1.RunID, h2.RunID = "h1", "h2"
		v := EvaluateHistory([]Expr{weighed}, c, b, []*assay.Run{h1, h2})
		if r := v.Results[0]; r.Pass {
			t.Fatalf("no_new_failures with history: pass, detail %q", r.Detail)
		}
	})
}
