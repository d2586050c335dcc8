package harness

import (
	"context"
	"fmt"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/cache"
	"github.com/assay-eval/assay/grade"
	"github.com/assay-eval/assay/harness/seam"
	"github.com/assay-eval/assay/judge/agreement"
	"github.com/assay-eval/assay/redact"
	"github.com/assay-eval/assay/store"
	"github.com/assay-eval/assay/suite"
)

// JudgeOptions are the judge's part of a Plan (docs/judge.md).
type JudgeOptions struct {
	// File is a judge definition file that replaces the suite's
	// `judge:`; Off turns the judge off; Repeats asks each case that many
	// times (0: once).
	File    string
	Off     bool
	Repeats int
	// Probes are bias probes asked besides the definition's own
	// (assay.JudgeProbes; --judge-probes).
	Probes []string
	// Config, when set, is the definition itself (a library caller's),
	// used instead of File and the suite's.
	Config *assay.JudgeConfig
	// New makes the judge of a definition. Nil: the one registered
	// (seam.RegisterJudge: importing package harness/opener registers
	// its Judge, through package judge), else a plan whose suite (or
	// File, or Config) defines a judge is refused, unless Off.
	// The harness reaches the model judge only through it (package seam),
	// so that a program that never judges links no HTTP client.
	New func(cfg assay.JudgeConfig, o seam.JudgeOptions) (seam.Judge, error)
}

// judgeSetup is what every run of a session needs to make its judge.
type judgeSetup struct {
	cfg     assay.JudgeConfig
	opts    seam.JudgeOptions
	make    func(assay.JudgeConfig, seam.JudgeOptions) (seam.Judge, error)
	cache   *cache.Cache // nil: no store directory
	secrets func() []redact.Secret
	labels  *agreement.Labels // the labels file judge.labels names, read
}

// openJudge finds the judge definition (Config, File, else the suite's),
// checks it and opens the cache under the store (<store>/cache), so that
// a bad definition or an unset ${VAR} fails before any case. nil: no judge
// (none defined, or Off).
func (f *Plan) openJudge(s *assay.Suite) (*judgeSetup, error) {
	jo := f.Judge
	switch {
	case jo.Off && jo.File != "":
		return nil, planError("Judge", "", "{JudgeOff} and {Judge} turn the judge off and on: give one")
	case jo.Repeats < 0 || jo.Repeats > assay.MaxJudgeRepeats:
		return nil, planError("JudgeRepeats", "", "{JudgeRepeats} must be from 1 to %d, got %d", assay.MaxJudgeRepeats, jo.Repeats)
	case jo.Off:
		return nil, nil
	}
	cfg := jo.Config
	if cfg == nil && jo.File != "" {
		var err error
		if cfg, err = suite.LoadJudge(jo.File); err != nil {
			return nil, inputError(err)
		}
	}
	if cfg == nil {
		cfg = s.Judge
	}
	if cfg == nil {
		if jo.Repeats > 0 {
			return nil, planError("JudgeRepeats", "define a judge: in the suite, or give {Judge} FILE", "{JudgeRepeats}: the suite defines no judge")
		}
		if len(jo.Probes) > 0 {
			return nil, planError("JudgeProbes", "define a judge: in the suite, or give {Judge} FILE", "bias probes of the judge were asked for, but the suite defines no judge")
		}
		return nil, nil
	}
	if jo.New == nil {
		return nil, planError("Judge", "a blank import registers it; or set Plan.Judge.New, or turn the judge off", "%s defines a judge, and the plan has nothing to make it with: import package github.com/assay-eval/assay/harness/opener", judgeWhere(cfg))
	}
	js := &judgeSetup{cfg: *cfg, make: jo.New, opts: seam.JudgeOptions{Getenv: f.Getenv, Secrets: f.Secrets, Repeats: jo.Repeats, AllowLiteralSecrets: f.AllowLiteralSecrets, Corpus: s.Corpus, Probes: jo.Probes}}
	if _, err := js.make(js.cfg, js.opts); err != nil {
		return nil, inputError(err)
	}
	if err := js.openLabels(); err != nil {
		return nil, err
	}
	if dir := cacheDir(f.StoreDir); dir != "" {
		c, err := cache.Open(dir)
		if err != nil {
			return nil, inputError(fmt.Errorf("judge cache: %w", err))
		}
		js.cache, js.opts.Cache = c, c
	}
	js.secrets = f.Secrets.Secrets
	return js, nil
}

// newJudge makes the judge of one run (each run has its own budget),
// once the run's target has added its secrets: the cache stores every
// answer redacted of them all.
func (js *judgeSetup) newJudge() (seam.Judge, error) {
	if js == nil {
		return nil, nil
	}
	if js.cache != nil {
		js.cache.Redact(js.secrets()...)
	}
	return js.make(js.cfg, js.opts)
}

// judgeWhere names where a judge definition is ("judge.yaml:3", else
// "the judge definition").
func judgeWhere(cfg *assay.JudgeConfig) string {
	if cfg.Source != "" {
		return cfg.Source
	}
	return "the judge definition"
}

// judgeHook is the runner's Judge option for j (nil: no judge).
// It also lets the judge assign the nuggets that ask for it and that no
// rule matched (judge.AssignNuggets), then scores the case's nuggets
// again (noVitalZero: the suite's nugget_no_vital).
func judgeHook(j seam.Judge, defaults map[string]float64, noVitalZero bool) func(context.Context, assay.Case, *assay.Observation, *assay.CaseResult) {
	if j == nil {
		return nil
	}
	return func(ctx context.Context, c assay.Case, obs *assay.Observation, r *assay.CaseResult) {
		j.Grade(ctx, c, obs, defaults, r)
		if j.AssignNuggets(ctx, c, obs, r) {
			grade.ScoreNuggets(r, noVitalZero)
		}
	}
}

// judgeWarnings word the judge's totals as remedies.
func judgeWarnings(s *assay.JudgeSummary) []string {
	if s == nil {
		return nil
	}
	var out []string
	if s.NotJudged > 0 {
		why := "the target failed on them"
		switch {
		case s.Breaker != "":
			why = "the judge endpoint is down (" + s.Breaker + "), so judging stopped; check the judge's url, model and key, then run again"
		case s.Budget != "":
			why = "the judge's budget (" + s.Budget + ") stopped the judging; raise judge.budget to judge them"
		}
		out = append(out, fmt.Sprintf("judge: %d %s not judged: %s", s.NotJudged, plural(s.NotJudged, "result", "results"), why))
	}
	if s.Errors > 0 {
		out = append(out, fmt.Sprintf("judge: %d %s got a judge error (class judge): see each case's judge.error", s.Errors, plural(s.Errors, "result", "results")))
	}
	if s.PartlyJudged > 0 {
		out = append(out, fmt.Sprintf("judge: %d %s judged without the criteria that read the passages (no passage text in the observation or the corpus): return each passage's text from the target, or give the suite the corpus it searches", s.PartlyJudged, plural(s.PartlyJudged, "result was", "results were")))
	}
	for _, p := range s.Probes {
		if p.Flagged {
			out = append(out, fmt.Sprintf("judge: the %s probe moves %s by %+.4f on average (more than %g): the judge's %s scores are biased by it; keep them out of gates, or use another judge model", p.Probe, p.Criterion, p.Effect, p.Threshold, p.Criterion))
		}
	}
	if s.UnstableCases > 0 {
		out = append(out, fmt.Sprintf("judge: %d %s a bound across %d repeats: the judge disagrees with itself there", s.UnstableCases, plural(s.UnstableCases, "result straddles", "results straddle"), s.Repeats))
	}
	return out
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// cacheDir is the cache directory of a run's store: under a store
// directory; "" with no store or a database store (store.IsURL), which
// keeps no files. The judge, Plan.Cache and builtin:hybrid's vectors all
// use it.
func cacheDir(storeDir string) string {
	if storeDir == "" || store.IsURL(storeDir) {
		return ""
	}
	return cache.StoreDir(storeDir)
}
