package cli

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/assay-eval/assay/harness"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/compare"
	"github.com/assay-eval/assay/gate"
	"github.com/assay-eval/assay/report"
	"github.com/assay-eval/assay/store"
	"github.com/assay-eval/assay/suite"
)

// PowerPlan is `assay power SUITE`: what the suite can see, from the
// latest complete runs of it in the store.
type PowerPlan struct {
	// Suite is a suite file (its name is read from it) or a suite name.
	Suite string
	// Deltas are METRIC=DELTA pairs (--delta ndcg@10=0.02).
	Deltas       []string
	StoreDir     string
	StoreOptions store.OpenOptions
	Stdout       io.Writer
	Stderr       io.Writer
}

// Power sizes the suite: it reads the latest complete run of the suite
// and the one before it (when there is one) from the store and writes
// report.PowerText of compare.PowerOf. The measures are pass_rate, the
// latest run's metric set, and every measure a --delta names.
func Power(ctx context.Context, p PowerPlan) error {
	deltas := map[string]float64{}
	var asked []string
	for _, d := range p.Deltas {
		name, val, ok := strings.Cut(d, "=")
		if !ok {
			return usageError("--delta METRIC=DELTA, e.g. --delta ndcg@10=0.02", "--delta %q: want METRIC=DELTA", d)
		}
		canon, err := gate.CanonicalMetric(name)
		if err != nil {
			return usageError("--delta METRIC=DELTA, e.g. --delta ndcg@10=0.02", "--delta %q: %v", d, err)
		}
		probe := gate.Expr{Metric: canon}
		if !probe.PairedMeasure() || compare.RateDirection(canon) == "none" {
			return usageError("an IR metric, pass_rate, error_rate, no_hit_rate or grounded_rate", "--delta %q: %s is not a measure compared case by case", d, canon)
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(val), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v <= 0 {
			return usageError("--delta METRIC=DELTA with DELTA > 0, e.g. --delta ndcg@10=0.02", "--delta %q: bad delta %q (want a number > 0)", d, val)
		}
		if _, dup := deltas[canon]; !dup {
			asked = append(asked, canon)
		}
		deltas[canon] = v
	}
	name := p.Suite
	if fi, err := os.Stat(p.Suite); err == nil && !fi.IsDir() {
		s, err := suite.Stream(p.Suite, suite.LoadOptions{})
		if err != nil {
			return inputError(err)
		}
		name = s.Suite.Name
	}
	if !store.IsURL(p.StoreDir) {
		if _, err := os.Stat(p.StoreDir); err != nil {
			return inputError(fmt.Errorf("no run store at %s: run 'assay run SUITE' first, or pass --store DIR", p.StoreDir))
		}
	}
	o := p.StoreOptions
	o.ForReading = true
	st, err := OpenStore(p.StoreDir, o)
	if err != nil {
		return inputError(err)
	}
	defer st.Close()
	report.Warnings(p.Stderr, st.Warnings())
	entries, err := st.List(ctx, store.Filter{Suite: name, Status: assay.StatusComplete, Limit: 2, NoShards: true})
	if err != nil {
		return inputError(err)
	}
	if len(entries) == 0 {
		return inputError(fmt.Errorf("no complete run of suite %q in %s: run 'assay run SUITE' first", name, store.RedactURL(p.StoreDir)))
	}
	runs := make([]*assay.Run, len(entries))
	for i, e := range entries {
		run, path, err := harness.LoadRef(ctx, st, e.RunID)
		if err != nil {
			return inputError(err)
		}
		if len(run.Cases) == 0 {
			if err := harness.RefCases(ctx, st, run, path, false, func(r assay.CaseResult) error { run.Cases = append(run.Cases, r); return nil }); err != nil {
				return inputError(err)
			}
		}
		runs[i] = run
	}
	var previous *assay.Run
	if len(runs) > 1 {
		previous = runs[1]
	}
	names := []string{"pass_rate"}
	for _, m := range append(slices.Clone(runs[0].Options.Metrics), asked...) {
		if !slices.Contains(names, m) {
			names = append(names, m)
		}
	}
	sp := compare.PowerOf(runs[0], previous, names, deltas, compare.Defaults.Alpha)
	return report.PowerText(p.Stdout, sp)
}
