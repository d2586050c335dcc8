package seam_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/cache"
	"github.com/assay-eval/assay/harness"
	"github.com/assay-eval/assay/harness/seam"
)

// fakeTargets opens every spec as a system that answers with document d1.
type fakeTargets struct{ opened *[]string }

func (f fakeTargets) Open(spec string, _ seam.TargetOptions) (assay.Target, error) {
	*f.opened = append(*f.opened, spec)
	return assay.TargetFunc(func(_ context.Context, c assay.Case) (assay.Observation, error) {
		return assay.Observation{Case: c.ID, Answer: "ok"}, nil
	}), nil
}
func (fakeTargets) Matrix(string) (seam.Matrix, error)      { return seam.Matrix{}, nil }
func (fakeTargets) Prices(string) (assay.PriceTable, error) { return nil, nil }
func (fakeTargets) Cache(assay.Target, assay.TargetInfo, *cache.Cache, seam.CacheOptions) assay.Target {
	return nil
}

const cases = `cases:
  - id: q1
    query: anything
    expect:
      answer_includes: ["ok"]
`

const suiteSrc = "assay: 1\nname: reg\n" + cases

const judgedSrc = "assay: 1\nname: judged\njudge:\n  url: http://127.0.0.1:1/v1\n  model: m1\n" + cases

// This test binary imports no package that registers (harness/opener),
// so the registry starts empty: a plan that names a target spec and
// sets no Targets is a Usage error on Targets that says which package to
// import; once Targets are registered, the same plan runs with them, and
// a plan's own Targets win over the registered ones. The judge's seam
// does the same.
func TestRegistry(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "suite.yaml")
	judged := filepath.Join(dir, "judged.yaml")
	for p, src := range map[string]string{path: suiteSrc, judged: judgedSrc} {
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	var pe *harness.PlanError

	silent := assay.TargetFunc(func(_ context.Context, c assay.Case) (assay.Observation, error) {
		return assay.Observation{Case: c.ID}, nil
	})
	for _, tc := range []struct {
		name, field string
		p           harness.Plan
	}{
		{"spec without Targets", "Targets", harness.Plan{SuitePath: path, Target: "http://127.0.0.1:1/ask"}},
		{"default builtin without Targets", "Targets", harness.Plan{SuitePath: "../../examples/quickstart/suite.yaml"}},
		{"judge without New", "Judge", harness.Plan{SuitePath: path, System: silent,
			Judge: harness.JudgeOptions{Config: &assay.JudgeConfig{URL: "http://127.0.0.1:1/v1", Model: "m"}}}},
	} {
		res, err := harness.Run(ctx, tc.p)
		if res != nil {
			res.Close()
			t.Fatalf("%s: Run made a result; want a Usage error", tc.name)
		}
		if harness.KindOf(err) != harness.Usage || !errors.As(err, &pe) || pe.Field != tc.field || !strings.Contains(err.Error(), "github.com/assay-eval/assay/harness/opener") {
			t.Fatalf("%s, nothing registered: err = %v; want a Usage error on %s naming package harness/opener", tc.name, err, tc.field)
		}
	}

	var registered, own []string
	seam.RegisterTargets(fakeTargets{&registered})
	res, err := harness.Run(ctx, harness.Plan{SuitePath: path, Target: "http://127.0.0.1:1/ask"})
	if err != nil {
		t.Fatalf("with Targets registered: %v", err)
	}
	res.Close()
	if len(registered) != 1 || registered[0] != "http://127.0.0.1:1/ask" || res.Runs[0].Summary.Passed != 1 {
		t.Fatalf("registered Targets opened %q, %d passed; want the plan's spec once, 1 passed", registered, res.Runs[0].Summary.Passed)
	}
	res, err = harness.Run(ctx, harness.Plan{SuitePath: path, Target: "x", Targets: fakeTargets{&own}})
	if err != nil {
		t.Fatal(err)
	}
	res.Close()
	if len(own) != 1 || len(registered) != 1 {
		t.Fatalf("a plan's own Targets opened %q, the registered %q; want the plan's only", own, registered)
	}

	_, err = harness.Run(ctx, harness.Plan{SuitePath: judged, Target: "x"})
	if !errors.As(err, &pe) || pe.Field != "Judge" || !strings.Contains(err.Error(), "github.com/assay-eval/assay/harness/opener") {
		t.Fatalf("no judge registered: err = %v; want a Usage error on Judge naming package harness/opener", err)
	}
	var made []string
	seam.RegisterJudge(func(cfg assay.JudgeConfig, _ seam.JudgeOptions) (seam.Judge, error) {
		made = append(made, cfg.Model)
		return nil, errors.New("registered judge maker called")
	})
	_, err = harness.Run(ctx, harness.Plan{SuitePath: judged, Target: "x"})
	if err == nil || !strings.Contains(err.Error(), "registered judge maker called") || len(made) != 1 || made[0] != "m1" {
		t.Fatalf("judge registered: err = %v, made %q; want the registered maker called for m1", err, made)
	}
}

// A nil registration is a programming error: it panics.
func TestRegisterNilPanics(t *testing.T) {
	for name, f := range map[string]func(){
		"targets": func() { seam.RegisterTargets(nil) },
		"judge":   func() { seam.RegisterJudge(nil) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Register %s with nil did not panic", name)
				}
			}()
			f()
		}()
	}
}
