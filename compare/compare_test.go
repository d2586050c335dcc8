package compare_test

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/compare"
)

// run builds a complete run of cases q00..q(n-1) of the built-in target
// (deterministic: a flip is a new failure); f sets each case.
func run(id string, n int, f func(i int, c *assay.CaseResult)) *assay.Run {
	r := &assay.Run{Schema: assay.RunSchema, RunID: id, Status: assay.StatusComplete, GradingVersion: 1,
		Suite:   assay.SuiteRef{Name: "kb", Fingerprint: "sha256:aa"},
		Target:  assay.TargetInfo{Kind: "builtin"},
		Options: assay.RunOptions{K: 10, Trials: 1, Metrics: []string{"ndcg@10", "mrr"}}}
	for i := range n {
		pass := true
		lat := 10.0 + float64(i)
		c := assay.CaseResult{ID: fmt.Sprintf("q%02d", i), Pass: &pass, LatencyMs: &lat, Retrieved: 10,
			Metrics: map[string]float64{"ndcg@10": 0.5 + 0.01*float64(i%7), "mrr": 0.5}}
		if f != nil {
			f(i, &c)
		}
		r.Cases = append(r.Cases, c)
	}
	return r
}

func fail(c *assay.CaseResult) { f := false; c.Pass = &f }

func metric(t *testing.T, rep compare.Report, name string) compare.MetricDelta {
	t.Helper()
	for _, m := range rep.Metrics {
		if m.Name == name {
			return m
		}
	}
	t.Fatalf("no metric %s in report (have %v)", name, names(rep))
	return compare.MetricDelta{}
}

func names(rep compare.Report) []string {
	var out []string
	for _, m := range rep.Metrics {
		out = append(out, m.Name)
	}
	return out
}

func TestVerdict(t *testing.T) {
	t.Parallel()
	const n = 30
	tests := []struct {
		name     string
		cand     func(i int, c *assay.CaseResult)
		want     compare.Verdict
		reason   string
		p2f, f2p []string
	}{
		{name: "identical runs are the same", want: compare.Same},
		{name: "a metric drop on every case regresses",
			cand: func(i int, c *assay.CaseResult) { c.Metrics["ndcg@10"] -= 0.05 + 0.001*float64(i%5) },
			want: compare.Regressed, reason: "ndcg@10 worse"},
		{name: "a single flipped case regresses",
			cand: func(i int, c *assay.CaseResult) {
				if i == 7 {
					fail(c)
				}
			},
			want: compare.Regressed, reason: "1 new failure (builtin target: deterministic): q07", p2f: []string{"q07"}},
		{name: "a metric gain on every case is better",
			cand: func(i int, c *assay.CaseResult) { c.Metrics["mrr"] += 0.1 },
			want: compare.Better, reason: "mrr better"},
		{name: "a gain does not hide a flip",
			cand: func(i int, c *assay.CaseResult) {
				c.Metrics["mrr"] += 0.1
				if i == 3 {
					fail(c)
				}
			},
			want: compare.Regressed, reason: "1 new failure (builtin target: deterministic): q03", p2f: []string{"q03"}},
		{name: "noise in both directions is the same",
			cand: func(i int, c *assay.CaseResult) { c.Metrics["ndcg@10"] += 0.02 * float64(i%3-1) },
			want: compare.Same},
		{name: "a fail to pass flip alone is the same",
			cand: func(i int, c *assay.CaseResult) {
				if i == 2 {
					c.Metrics["mrr"] = 0.4
				}
			},
			want: compare.Same},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rep := compare.Runs(run("b", n, nil), run("c", n, tc.cand), compare.Options{})
			if rep.Verdict != tc.want {
				t.Errorf("verdict %s; want %s (reasons %v)", rep.Verdict, tc.want, rep.Reasons)
			}
			if tc.reason != "" && !slices.ContainsFunc(rep.Reasons, func(r string) bool { return strings.HasPrefix(r, tc.reason) }) {
				t.Errorf("reasons %q; want %q among them", rep.Reasons, tc.reason)
			}
			if tc.p2f == nil {
				tc.p2f = []string{}
			}
			if !reflect.DeepEqual(rep.Flips.PassToFail, tc.p2f) {
				t.Errorf("pass→fail %v; want %v", rep.Flips.PassToFail, tc.p2f)
			}
			if rep.PairedCases != n {
				t.Errorf("paired %d; want %d", rep.PairedCases, n)
			}
		})
	}
}

func TestFailToPassFlip(t *testing.T) {
	t.Parallel()
	base := run("b", 12, func(i int, c *assay.CaseResult) {
		if i == 4 {
			fail(c)
		}
	})
	rep := compare.Runs(base, run("c", 12, nil), compare.Options{})
	if !reflect.DeepEqual(rep.Flips.FailToPass, []string{"q04"}) {
		t.Errorf("fail→pass %v; want [q04]", rep.Flips.FailToPass)
	}
	// the built-in target is deterministic: the fix is confirmed
	if rep.Verdict != compare.Better || !slices.Equal(rep.Reasons, []string{"1 case fixed (builtin target: deterministic)"}) {
		t.Errorf("verdict %s %q; want better by one fixed case of a deterministic target", rep.Verdict, rep.Reasons)
	}
}

func TestMetricNumbers(t *testing.T) {
	t.Parallel()
	base := run("b", 20, nil)
	cand := run("c", 20, func(i int, c *assay.CaseResult) { c.Metrics["mrr"] = 0.4 })
	m := metric(t, compare.Runs(base, cand, compare.Options{}), "mrr")
	if m.N != 20 || m.Baseline != 0.5 || fmt.Sprintf("%.6f %.6f", m.Candidate, m.Delta) != "0.400000 -0.100000" {
		t.Errorf("mrr = %+v; want n 20, 0.5 -> 0.4, delta -0.1", m)
	}
	if fmt.Sprintf("%.6f %.6f", m.CI95[0], m.CI95[1]) != "-0.100000 -0.100000" {
		t.Errorf("ci95 %v; every delta is -0.1", m.CI95)
	}
	if m.P != 2.0/(1<<20) || !m.Significant || m.Change != compare.Worsened || !m.Gated {
		t.Errorf("p %v significant %v change %q gated %v; want exact p 2/2^20, significant, worse, gated", m.P, m.Significant, m.Change, m.Gated)
	}
}

func TestOrderOfMeasures(t *testing.T) {
	t.Parallel()
	base := run("b", 10, func(i int, c *assay.CaseResult) { c.Metrics["hit@5"] = 1 })
	cand := run("c", 10, func(i int, c *assay.CaseResult) {
		c.Metrics["hit@5"] = 1
		if i == 0 {
			c.Error = assay.Errorf(assay.ErrTimeout, "slow")
			c.Retrieved = 0
		}
	})
	got := strings.Join(names(compare.Runs(base, cand, compare.Options{})), " ")
	if want := "pass_rate ndcg@10 mrr hit@5 error_rate"; got != want {
		t.Errorf("measures %q; want %q", got, want)
	}
}

func TestWarnings(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		base *assay.Run
		cand *assay.Run
		want string
	}{
		{"fingerprints differ: the intersection was compared",
			run("b", 30, nil),
			func() *assay.Run { r := run("c", 28, nil); r.Suite.Fingerprint = "sha256:bb"; return r }(),
			"suite fingerprints differ: compared the 28 cases present in both"},
		{"cached candidate",
			run("b", 12, nil),
			func() *assay.Run { r := run("c", 12, nil); r.Summary.Cases, r.Summary.Cached = 12, 12; return r }(),
			"the candidate answered 12 of 12 cases from the response cache: a change in the system does not show in them, and their latency is not compared; run without --cache to measure them"},
		{"too few paired cases",
			run("b", 6, nil), run("c", 6, nil),
			"only 6 paired cases: need >= 10 for a 95% CI to mean much"},
		{"one paired case, in the singular",
			run("b", 1, nil), run("c", 1, nil),
			"only 1 paired case: need >= 10 for a 95% CI to mean much"},
		{"incomplete candidate",
			run("b", 12, nil),
			func() *assay.Run { r := run("c", 12, nil); r.Status = assay.StatusIncomplete; return r }(),
			"candidate run c is incomplete: compared the cases it finished; rerun it to completion"},
		{"system versions differ",
			func() *assay.Run {
				r := run("b", 12, nil)
				r.Target.Versions = map[string]string{"embedding": "e5@1"}
				return r
			}(),
			func() *assay.Run {
				r := run("c", 12, nil)
				r.Target.Versions = map[string]string{"embedding": "e5@2"}
				return r
			}(),
			"system versions differ (embedding e5@1 → e5@2): pin them to attribute the change to the code under test"},
		{"metric sets differ",
			run("b", 12, func(i int, c *assay.CaseResult) { c.Metrics["recall@5"] = 1 }),
			run("c", 12, func(i int, c *assay.CaseResult) { c.Metrics["p@5"] = 0.2 }),
			"metrics recorded by one run only were not compared (recall@5 only in the baseline, p@5 only in the candidate): run both with the same metric set"},
		{"trials differ",
			run("b", 12, nil),
			func() *assay.Run {
				r := run("c", 12, nil)
				r.Options.Trials = 2
				for _, c := range slices.Clone(r.Cases) {
					c.Trial = 1
					r.Cases = append(r.Cases, c)
				}
				return r
			}(),
			"trials differ (1 vs 2): compared the 12 case trials present in both; run both with the same --trials"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rep := compare.Runs(tc.base, tc.cand, compare.Options{})
			if !slices.Contains(rep.Warnings, tc.want) {
				t.Errorf("warnings %q; want %q", rep.Warnings, tc.want)
			}
		})
	}
	t.Run("clean comparison has none", func(t *testing.T) {
		rep := compare.Runs(run("b", 12, nil), run("c", 12, nil), compare.Options{})
		if len(rep.Warnings) != 0 {
			t.Errorf("warnings %q; want none", rep.Warnings)
		}
	})
}

func TestReproducible(t *testing.T) {
	t.Parallel()
	base := synthRun("base", 300, 0, 0)
	cand := synthRun("cand", 300, 1, 0.5)
	a, _ := json.Marshal(compare.Runs(base, cand, compare.Options{}))
	b, _ := json.Marshal(compare.Runs(base, cand, compare.Options{}))
	if string(a) != string(b) {
		t.Error("two comparisons of the same runs differ")
	}
	// Case order in the files does not matter.
	slices.Reverse(cand.Cases)
	c, _ := json.Marshal(compare.Runs(base, cand, compare.Options{}))
	if string(a) != string(c) {
		t.Error("reordering the candidate's cases changed the comparison")
	}
}

func TestLatency(t *testing.T) {
	t.Parallel()
	cand := run("c", 20, func(i int, c *assay.CaseResult) { v := *c.LatencyMs + 5; c.LatencyMs = &v })
	rep := compare.Runs(run("b", 20, nil), cand, compare.Options{})
	l := rep.Latency
	if l.N != 20 || l.Baseline.P50 != 19 || l.Baseline.P95 != 28 || l.DeltaP50 != 5 || l.DeltaP95 != 5 {
		t.Errorf("latency %+v; want n 20, p50 19 p95 28, +5 each", l)
	}
}

func TestNoPairs(t *testing.T) {
	t.Parallel()
	cand := run("c", 5, func(i int, c *assay.CaseResult) { c.ID = "other" + c.ID })
	rep := compare.Runs(run("b", 5, nil), cand, compare.Options{})
	if rep.Verdict != compare.Inconclusive || rep.PairedCases != 0 || len(rep.Metrics) != 0 {
		t.Errorf("report %+v; want inconclusive with nothing compared", rep)
	}
}

func TestVerdictText(t *testing.T) {
	t.Parallel()
	var v compare.Verdict
	if err := v.UnmarshalText([]byte("regressed")); err != nil || v != compare.Regressed {
		t.Errorf("UnmarshalText regressed: %v %v", v, err)
	}
	if err := v.UnmarshalText([]byte("worse")); err == nil {
		t.Error("UnmarshalText accepted worse")
	}
}

// trialRun builds a complete run of cases q00..q(n-1), trials each; f sets
// each case trial.
func trialRun(id string, n, trials int, f func(i, t int, c *assay.CaseResult)) *assay.Run {
	r := run(id, 0, nil)
	r.Options.Trials = trials
	for i := range n {
		for t := range trials {
			pass := true
			c := assay.CaseResult{ID: fmt.Sprintf("q%02d", i), Trial: t, Pass: &pass, Retrieved: 10,
				Metrics: map[string]float64{"ndcg@10": 1, "mrr": 1}}
			if f != nil {
				f(i, t, &c)
			}
			r.Cases = append(r.Cases, c)
		}
	}
	return r
}

// With several trials, compare pairs cases over their trial means.
// Four of 12 cases drop in all 3 trials: as 12 independent case trials the
// exact p would be 2/2^12 (significant); over 4 case means it is 2/2^4 =
// 0.125 (not significant), and n is 12 cases, not 36 case trials.
func TestTrialsPairOverCaseMeans(t *testing.T) {
	t.Parallel()
	base := trialRun("b", 12, 3, nil)
	cand := trialRun("c", 12, 3, func(i, _ int, c *assay.CaseResult) {
		if i < 4 {
			c.Metrics["mrr"] = 0.5
		}
	})
	rep := compare.Runs(base, cand, compare.Options{})
	m := metric(t, rep, "mrr")
	if m.N != 12 || m.P != 0.125 || m.Significant || m.Delta != -1.0/6 {
		t.Errorf("mrr: n %d, p %v, significant %v, delta %v; want n 12, p 0.125, not significant, delta -1/6", m.N, m.P, m.Significant, m.Delta)
	}
	// mrr's interval reaches far beyond its margin: not shown the same
	if rep.Verdict != compare.Inconclusive || rep.PairedCases != 12 || rep.PairedValues != 36 {
		t.Errorf("verdict %s, paired %d cases %d values; want inconclusive, 12, 36", rep.Verdict, rep.PairedCases, rep.PairedValues)
	}

	// A case whose trials move both ways averages out: q00 trial 0 -0.5,
	// trial 1 +0.5 gives a per-case delta of 0 (dropped from the test);
	// q01..q06 drop in one trial of three: 6 equal deltas of -1/6, p = 2/2^6.
	cand = trialRun("c", 12, 3, func(i, t int, c *assay.CaseResult) {
		switch {
		case i == 0 && t == 0:
			c.Metrics["mrr"] = 0.5
		case i == 0 && t == 1:
			c.Metrics["mrr"] = 1.5
		case i >= 1 && i <= 6 && t == 2:
			c.Metrics["mrr"] = 0.5
		}
	})
	rep = compare.Runs(base, cand, compare.Options{})
	m = metric(t, rep, "mrr")
	if m.N != 12 || m.P != 2.0/64 || !m.Significant || m.Change != compare.Worsened {
		t.Errorf("mrr: n %d, p %v, significant %v, change %s; want n 12, p 2/64, significant, worse", m.N, m.P, m.Significant, m.Change)
	}

	// pass_rate is the mean over cases of each case's share of passing
	// trials: one trial of q00 failing is 1/3 of a case.
	cand = trialRun("c", 12, 3, func(i, t int, c *assay.CaseResult) {
		if i == 0 && t == 1 {
			fail(c)
		}
	})
	rep = compare.Runs(base, cand, compare.Options{})
	if m := metric(t, rep, "pass_rate"); m.N != 12 || m.P != 1 || math.Abs(m.Delta+1.0/36) > 1e-15 {
		t.Errorf("pass_rate: n %d, p %v, delta %v; want n 12, p 1, delta -1/36", m.N, m.P, m.Delta)
	}
	// q00 varies within its trials: its flip is flaky, not a new failure
	if ev := rep.FlipEvidence; !slices.Equal(rep.Flips.PassToFail, []string{"q00"}) || rep.Verdict != compare.Inconclusive ||
		len(ev.Flaky) != 1 || ev.Flaky[0].ID != "q00" || len(ev.Confirmed) != 0 {
		t.Errorf("flips %v, verdict %s, evidence %+v; want [q00] flaky, inconclusive", rep.Flips.PassToFail, rep.Verdict, rep.FlipEvidence)
	}
}
