package compare_test

import (
	"reflect"
	"testing"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/compare"
)

// TestRefusalFlips: a case the baseline answered and the candidate refuses
// is listed and makes the verdict regressed, even when nothing else moved
// (kebab's compare reports it); a refused case now answered is listed but
// is not a regression; a negative case that now passes its refusal: true
// expectation is listed and is not a regression.
func TestRefusalFlips(t *testing.T) {
	base := run("b", 12, func(i int, c *assay.CaseResult) {
		c.Refused = i == 5
		if i == 9 {
			fail(c)
			c.Checks = []assay.Check{{Kind: "refusal", Pass: false, Detail: "not refused"}}
		}
	})
	t.Run("answered to refused regresses", func(t *testing.T) {
		cand := run("c", 12, func(i int, c *assay.CaseResult) { c.Refused = i == 5 || i == 3 })
		rep := compare.Runs(base, cand, compare.Options{})
		if got := rep.Flips.AnsweredToRefused; !reflect.DeepEqual(got, []string{"q03"}) {
			t.Errorf("answered_to_refused %v; want [q03]", got)
		}
		if rep.Verdict != compare.Regressed || !reflect.DeepEqual(rep.Reasons, []string{"1 answered case now refused"}) {
			t.Errorf("verdict %s %v; want regressed by the refusal flip", rep.Verdict, rep.Reasons)
		}
	})
	t.Run("refused to answered is listed only", func(t *testing.T) {
		cand := run("c", 12, nil)
		rep := compare.Runs(base, cand, compare.Options{})
		if got := rep.Flips.RefusedToAnswered; !reflect.DeepEqual(got, []string{"q05"}) {
			t.Errorf("refused_to_answered %v; want [q05]", got)
		}
		if rep.Verdict == compare.Regressed {
			t.Errorf("verdict %s %v; want no regression", rep.Verdict, rep.Reasons)
		}
	})
	t.Run("expected refusal is not a regression", func(t *testing.T) {
		cand := run("c", 12, func(i int, c *assay.CaseResult) {
			c.Refused = i == 5 || i == 9
			if i == 9 {
				c.Checks = []assay.Check{{Kind: "refusal", Pass: true}}
			}
		})
		rep := compare.Runs(base, cand, compare.Options{})
		if got := rep.Flips.AnsweredToRefused; !reflect.DeepEqual(got, []string{"q09"}) {
			t.Errorf("answered_to_refused %v; want [q09]", got)
		}
		if rep.Verdict == compare.Regressed {
			t.Errorf("verdict %s %v; a case that now refuses as expected is no regression", rep.Verdict, rep.Reasons)
		}
	})
}

// TestTopScoreDeltas: per-case top-score changes are listed, largest
// |delta| first; unchanged and missing scores are left out.
func TestTopScoreDeltas(t *testing.T) {
	score := func(v float64) *float64 { return &v }
	base := run("b", 6, func(i int, c *assay.CaseResult) {
		if i != 4 {
			c.TopScore = score(float64(10 + i))
		}
	})
	cand := run("c", 6, func(i int, c *assay.CaseResult) {
		c.TopScore = score(float64(10 + i))
		switch i {
		case 1:
			c.TopScore = score(12.5)
		case 3:
			c.TopScore = score(9)
		}
	})
	rep := compare.Runs(base, cand, compare.Options{})
	want := []compare.ScoreDelta{{ID: "q03", Baseline: 13, Candidate: 9, Delta: -4}, {ID: "q01", Baseline: 11, Candidate: 12.5, Delta: 1.5}}
	if !reflect.DeepEqual(rep.TopScores, want) {
		t.Errorf("top scores %+v; want %+v", rep.TopScores, want)
	}
	if rep.Verdict != compare.Same {
		t.Errorf("verdict %s: top scores are reported, not gated", rep.Verdict)
	}
}
