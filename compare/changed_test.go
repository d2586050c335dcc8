package compare_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/compare"
)

// hashed gives every case the hash of its id and v, so a case whose v
// differs between two runs has changed.
func hashed(v func(i int) string) func(i int, c *assay.CaseResult) {
	return func(i int, c *assay.CaseResult) { c.Hash = fmt.Sprintf("sha256:%s-%s", c.ID, v(i)) }
}

func TestChangedCasesAreNotPaired(t *testing.T) {
	t.Parallel()
	same := func(int) string { return "a" }
	base := run("b", 30, hashed(same))
	// q03 and q07 changed and now fail; nothing else moved.
	cand := run("c", 30, func(i int, c *assay.CaseResult) {
		v := "a"
		if i == 3 || i == 7 {
			v = "b"
			fail(c)
		}
		hashed(func(int) string { return v })(i, c)
	})
	rep := compare.Runs(base, cand, compare.Options{})
	if want := []string{"q03", "q07"}; !slices.Equal(rep.ChangedCases, want) {
		t.Errorf("changed cases %q; want %q", rep.ChangedCases, want)
	}
	if rep.PairedCases != 28 {
		t.Errorf("paired %d cases; want 28 (the changed ones left out)", rep.PairedCases)
	}
	if len(rep.Flips.PassToFail) != 0 || rep.Verdict == compare.Regressed {
		t.Errorf("a changed case's failure counted: flips %v, verdict %s", rep.Flips.PassToFail, rep.Verdict)
	}
	want := "2 cases changed (query, expectations or judgments) between the runs and were not compared: q03, q07; rerun the baseline on this suite to compare them"
	if !slices.Contains(rep.Warnings, want) {
		t.Errorf("warnings %q; want %q", rep.Warnings, want)
	}

	t.Run("listed once over trials", func(t *testing.T) {
		b, c := *base, *cand
		b.Cases, c.Cases = slices.Clone(base.Cases), slices.Clone(cand.Cases)
		for _, r := range []*assay.Run{&b, &c} {
			for _, cr := range slices.Clone(r.Cases) {
				cr.Trial = 1
				r.Cases = append(r.Cases, cr)
			}
			r.Options.Trials = 2
		}
		rep := compare.Runs(&b, &c, compare.Options{})
		if want := []string{"q03", "q07"}; !slices.Equal(rep.ChangedCases, want) {
			t.Errorf("changed cases %q; want %q", rep.ChangedCases, want)
		}
		if rep.PairedValues != 56 {
			t.Errorf("paired %d case trials; want 56", rep.PairedValues)
		}
	})

	t.Run("a result without a hash is paired", func(t *testing.T) {
		c := *cand
		c.Cases = slices.Clone(cand.Cases)
		c.Cases[3].Hash = ""
		rep := compare.Runs(base, &c, compare.Options{})
		if want := []string{"q07"}; !slices.Equal(rep.ChangedCases, want) {
			t.Errorf("changed cases %q; want %q", rep.ChangedCases, want)
		}
		if !slices.Contains(rep.Flips.PassToFail, "q03") {
			t.Errorf("q03 (no hash: change unknown) was not paired: flips %v", rep.Flips.PassToFail)
		}
	})
}

func TestUnchangedRunsListNoChange(t *testing.T) {
	t.Parallel()
	same := hashed(func(int) string { return "a" })
	rep := compare.Runs(run("b", 12, same), run("c", 12, same), compare.Options{})
	if rep.ChangedCases == nil || len(rep.ChangedCases) != 0 {
		t.Errorf("changed cases %#v; want an empty list", rep.ChangedCases)
	}
	if len(rep.Warnings) != 0 {
		t.Errorf("warnings %q; want none", rep.Warnings)
	}
}

func TestGradingRuleWarnings(t *testing.T) {
	t.Parallel()
	version := func(v int) *assay.Run {
		r := run(fmt.Sprintf("r%d", v), 12, nil)
		r.GradingVersion = v
		return r
	}
	tests := []struct {
		name       string
		base, cand *assay.Run
		want       string
	}{
		{"versions differ", version(1), version(2),
			"grading rules differ (baseline version 1, candidate version 2): a change may come from assay's rules, not the system; rerun the baseline with this assay"},
		{"old baseline", version(0), version(1),
			"the baseline run r0 was made by an assay that recorded neither case hashes nor grading rules: cases were paired by id, so a case changed since cannot be told apart; rerun with this assay to compare only unchanged cases"},
		{"old candidate", version(1), version(0), "the candidate run r0 was made by an assay"},
		{"both old", version(0), version(0), "both runs (r0, r0) were made by an assay"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rep := compare.Runs(tc.base, tc.cand, compare.Options{})
			found := false
			for _, w := range rep.Warnings {
				found = found || strings.HasPrefix(w, tc.want)
			}
			if !found {
				t.Errorf("warnings %q; want one starting %q", rep.Warnings, tc.want)
			}
			if rep.PairedCases != 12 {
				t.Errorf("paired %d cases; want 12 (an old run still compares)", rep.PairedCases)
			}
		})
	}
}

func TestJudgedCoverageDifferenceWarns(t *testing.T) {
	t.Parallel()
	unj := func(m map[string]float64) map[string]assay.MetricAgg {
		out := map[string]assay.MetricAgg{}
		for k, v := range m {
			out[k] = assay.MetricAgg{Mean: v, N: 12}
		}
		return out
	}
	tests := []struct {
		name       string
		base, cand map[string]float64
		want       []string
	}{
		{"the candidate surfaces unjudged documents",
			map[string]float64{"unj@5": 0.02, "unj@10": 0.04}, map[string]float64{"unj@5": 0.12, "unj@10": 0.2},
			[]string{"judged coverage differs: 4.0 % of the baseline's top-10 documents are unjudged, 20.0 % of the candidate's; the candidate is scored lower for documents nobody judged, so a delta may be that; judge them"}},
		{"the baseline did", map[string]float64{"unj@10": 0.3}, map[string]float64{"unj@10": 0.1},
			[]string{"judged coverage differs: 30.0 % of the baseline's top-10 documents are unjudged, 10.0 % of the candidate's; the baseline is scored lower for documents nobody judged, so a delta may be that; judge them"}},
		{"equally unjudged runs", map[string]float64{"unj@10": 0.7}, map[string]float64{"unj@10": 0.72}, nil},
		{"a difference of exactly the threshold", map[string]float64{"unj@10": 0.1}, map[string]float64{"unj@10": 0.15}, nil},
		{"an older baseline records none", nil, map[string]float64{"unj@10": 0.5}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			base, cand := run("b", 12, nil), run("c", 12, nil)
			base.Summary.Unjudged, cand.Summary.Unjudged = unj(tc.base), unj(tc.cand)
			rep := compare.Runs(base, cand, compare.Options{})
			if !slices.Equal(rep.Warnings, tc.want) {
				t.Errorf("warnings %q; want %q", rep.Warnings, tc.want)
			}
		})
	}
}
