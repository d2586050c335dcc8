// Package opener connects the harness to the kinds of target (package
// target) and to the model judge (package judge): it provides the seams
// seam.Targets and harness.JudgeOptions.New, and registers both in its
// init (seam.RegisterTargets, seam.RegisterJudge), so that importing it,
// blank, is all a Go program does when its plan names a target by spec or
// its suite defines a judge:
//
//	import _ "github.com/assay-eval/assay/harness/opener"
//
//	harness.Run(ctx, harness.Plan{SuitePath: "suite.yaml", Target: "http://127.0.0.1:8080/ask"})
//
// A plan that sets Plan.Targets or Plan.Judge.New uses its own instead.
// They are apart from the harness so that a program that only runs a Go
// value (a test that imports package assaytest) links no HTTP client, no
// templates and no search engine.
package opener

import (
	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/cache"
	// Registers the validator of the json_schema check: a program that
	// imports opener runs every kind of suite the assay command runs.
	_ "github.com/assay-eval/assay/grade/jsonschema"
	"github.com/assay-eval/assay/harness/seam"
	"github.com/assay-eval/assay/judge"
	"github.com/assay-eval/assay/target"
)

func init() {
	seam.RegisterTargets(Targets{})
	seam.RegisterJudge(Judge)
}

// Targets opens target specs with package target (target.Open).
type Targets struct{}

var _ seam.Targets = Targets{}

// Open opens the target spec names (target.Open).
func (Targets) Open(spec string, o seam.TargetOptions) (assay.Target, error) {
	return target.Open(spec, o)
}

// Matrix reads the variants: and ordering: of a target file
// (target.ReadMatrix); zero for a spec that is no target file.
func (Targets) Matrix(spec string) (seam.Matrix, error) {
	if !target.IsFile(spec) {
		return seam.Matrix{}, nil
	}
	m, err := target.ReadMatrix(spec)
	return seam.Matrix{Keys: m.Keys, Variants: m.Variants, Orderings: m.Orderings}, err
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
func (Targets) Cache(t assay.Target, info assay.TargetInfo, c *cache.Cache, o seam.CacheOptions) assay.Target {
	if !target.Cacheable(info.Kind) {
		return nil
	}
	return target.NewCached(t, info, c, target.CacheOptions{K: o.K, Variant: o.Variant})
}

// Judge makes the judge of a definition with package judge (judge.New).
func Judge(cfg assay.JudgeConfig, o seam.JudgeOptions) (seam.Judge, error) {
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

// judgeOf is a *judge.Judge as a seam.Judge: its tally as a
// seam.JudgeTally.
type judgeOf struct{ *judge.Judge }

func (j judgeOf) NewTally(trials bool) seam.JudgeTally { return j.Judge.NewTally(trials) }
