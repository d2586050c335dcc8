// Package opener connects the harness to the kinds of target (package
// target) and to the model judge (package judge): it provides the seams
// harness.Targets and harness.JudgeOptions.New. The assay command sets
// both in every plan; a Go program sets them when its plan names a target
// by spec, or when its suite defines a judge:
//
//	harness.Plan{
//		SuitePath: "suite.yaml",
//		Target:    "http://127.0.0.1:8080/ask",
//		Targets:   opener.Targets{},
//		Judge:     harness.JudgeOptions{New: opener.Judge},
//	}
//
// They are apart from the harness so that a program that only runs a Go
// value (a test that imports package assaytest) links no HTTP client, no
// templates and no search engine.
package opener

import (
	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/cache"
	"github.com/assay-eval/assay/harness"
	"github.com/assay-eval/assay/judge"
	"github.com/assay-eval/assay/target"
)

// Targets opens target specs with package target (target.Open).
type Targets struct{}

var _ harness.Targets = Targets{}

// Open opens the target spec names (target.Open).
func (Targets) Open(spec string, o harness.TargetOptions) (assay.Target, error) {
	return target.Open(spec, target.Options{Suite: o.Suite, Getenv: o.Getenv, AllowLiteralSecrets: o.AllowLiteralSecrets,
		Keep: o.Keep, Variant: o.Variant, CacheDir: o.CacheDir})
}

// Matrix reads the variants: and ordering: of a target file
// (target.ReadMatrix); zero for a spec that is no target file.
func (Targets) Matrix(spec string) (harness.Matrix, error) {
	if !target.IsFile(spec) {
		return harness.Matrix{}, nil
	}
	m, err := target.ReadMatrix(spec)
	return harness.Matrix{Keys: m.Keys, Variants: m.Variants, Orderings: m.Orderings}, err
}

// Prices reads the prices: of a target file (target.ReadPrices); nil for
// a spec that is no target file.
func (Targets) Prices(spec string) (assay.PriceTable, error) {
	if !target.IsFile(spec) {
		return nil, nil
	}
	return target.ReadPrices(spec)
}

// Cache wraps t in target.Cached when its kind is cached
// (target.Cacheable), else returns nil.
func (Targets) Cache(t assay.Target, info assay.TargetInfo, c *cache.Cache, o harness.CacheOptions) assay.Target {
	if !target.Cacheable(info.Kind) {
		return nil
	}
	return target.NewCached(t, info, c, target.CacheOptions{K: o.K, Variant: o.Variant})
}

// Judge makes the judge of a definition with package judge (judge.New).
func Judge(cfg assay.JudgeConfig, o harness.NewJudgeOptions) (harness.Judge, error) {
	jo := judge.Options{Getenv: o.Getenv, Secrets: o.Secrets, Repeats: o.Repeats, Probes: o.Probes,
		AllowLiteralSecrets: o.AllowLiteralSecrets, Corpus: o.Corpus}
	if o.Cache != nil {
		jo.Cache = o.Cache // a nil *cache.Cache would be a non-nil Store
	}
	j, err := judge.New(cfg, jo)
	if err != nil {
		return nil, err
	}
	return judgeOf{j}, nil
}

// judgeOf is a *judge.Judge as a harness.Judge: its tally as a
// harness.JudgeTally.
type judgeOf struct{ *judge.Judge }

func (j judgeOf) NewTally(trials bool) harness.JudgeTally { return j.Judge.NewTally(trials) }
