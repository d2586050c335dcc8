package compare

import (
	"fmt"
	"math"
	"strings"

	"github.com/assay-eval/assay"
)

// Inconclusive is the verdict when neither a regression nor equivalence
// (every gated measure inside its margin) is shown.
const Inconclusive Verdict = "inconclusive"

// Multiplicity is how the p-values of one family are adjusted.
type Multiplicity string

// Multiplicity procedures: Holm's step-down (the default) or none.
const (
	HolmStepDown Multiplicity = "holm"
	NoAdjustment Multiplicity = "none"
)

// MarshalText implements encoding.TextMarshaler.
func (m Multiplicity) MarshalText() ([]byte, error) { return []byte(m), nil }

// UnmarshalText accepts holm or none.
func (m *Multiplicity) UnmarshalText(b []byte) error {
	switch Multiplicity(strings.ToLower(string(b))) {
	case HolmStepDown, NoAdjustment:
		*m = Multiplicity(strings.ToLower(string(b)))
		return nil
	}
	return fmt.Errorf("unknown multiplicity %q (valid: holm, none)", b)
}

// Default equivalence margins: a gated measure whose 95% interval lies
// inside ±margin is shown to be the same.
const (
	DefaultRateMargin   = 0.05 // pass_rate: five points
	DefaultMetricMargin = 0.02 // an IR metric (ndcg@10, mrr, ...)
)

// Margin returns the equivalence margin of the measure name: margins[name]
// when set, else the default.
func Margin(name string, margins map[string]float64) float64 {
	if m, ok := margins[strings.ToLower(name)]; ok {
		return m
	}
	if name == "pass_rate" {
		return DefaultRateMargin
	}
	return DefaultMetricMargin
}

// margins merges the equivalence margins: the suite's as the runs recorded
// them (the candidate's over the baseline's), then the comparison's own.
func margins(base, cand *assay.Run, own map[string]float64) map[string]float64 {
	if len(base.Options.Margins)+len(cand.Options.Margins) == 0 {
		return own
	}
	out := map[string]float64{}
	for _, m := range []map[string]float64{base.Options.Margins, cand.Options.Margins, own} {
		for k, v := range m {
			out[strings.ToLower(k)] = v
		}
	}
	return out
}

// Family is the family whose p-values were adjusted together: the gated
// measures, the flips (McNemar's test) and each case whose own test
// joined it ("case ID").
type Family struct {
	Method  Multiplicity `json:"method"`
	Members []Member     `json:"members"`
	// Comparisons is the number of comparisons of a variant matrix whose
	// tests were adjusted together (Matrix), and Tests the number of tests
	// across them; both 0 for a comparison that is its own family.
	Comparisons int `json:"comparisons,omitempty"`
	Tests       int `json:"tests,omitempty"`
}

// Member is one test of the family, with its raw and adjusted p.
type Member struct {
	Name      string  `json:"name"`
	P         float64 `json:"p"`
	PAdjusted float64 `json:"p_adjusted"`
}

// decide adjusts the family, sets each gated measure's margin and adjusted
// p, and returns the verdict with its reasons.
func decide(rep *Report, sds []float64, ff *FlipFamily, o Options, given []float64) {
	var ps []float64
	var gated []int
	for i, m := range rep.Metrics {
		if m.Gated {
			gated = append(gated, i)
			ps = append(ps, m.P)
		}
	}
	flipMembers := ff.Members()
	ps = append(ps, flipMembers...)
	adj := ps
	switch {
	case given != nil:
		adj = given
	case o.Multiplicity != NoAdjustment:
		adj = Holm(ps)
	}
	fam := Family{Method: o.Multiplicity, Members: []Member{}}
	for j, i := range gated {
		a := adj[j]
		rep.Metrics[i].PAdjusted = &a
		mg := Margin(rep.Metrics[i].Name, o.Margins)
		rep.Metrics[i].Margin = &mg
		fam.Members = append(fam.Members, Member{rep.Metrics[i].Name, ps[j], a})
	}
	for j, name := range ff.memberNames() {
		fam.Members = append(fam.Members, Member{name, ps[len(gated)+j], adj[len(gated)+j]})
	}
	rep.Family = fam
	ff.Settle(adj[len(gated):], o.Alpha)
	ev := ff.Evidence
	rep.FlipEvidence = &ev

	var worse, better, undecided []string
	same := true
	for j, i := range gated {
		m := &rep.Metrics[i]
		a := adj[j]
		sig := a < o.Alpha && m.Delta != 0
		switch {
		case sig && m.Direction == "higher" && m.Delta < 0:
			worse = append(worse, fmt.Sprintf("%s worse (p %s, adjusted %s)", m.Name, fmtP(m.P), fmtP(a)))
		case sig && m.Direction == "higher" && m.Delta > 0:
			better = append(better, fmt.Sprintf("%s better (p %s, adjusted %s)", m.Name, fmtP(m.P), fmtP(a)))
		}
		mg := *m.Margin
		m.Equivalent = m.CI95[0] >= -mg && m.CI95[1] <= mg
		if !m.Equivalent {
			same = false
			need := casesToDecide(sds[i], m.Delta, mg, o.Alpha)
			m.CasesToDecide = need
			what := fmt.Sprintf("%s: 95%% CI [%+.4f, %+.4f] not inside ±%g", m.Name, m.CI95[0], m.CI95[1], mg)
			if !sig && (m.Change == Worsened || m.Change == Improved) {
				what += fmt.Sprintf(", %s at p %s but not after adjustment (%s)", m.Change, fmtP(m.P), fmtP(a))
			}
			if need > m.N {
				what += fmt.Sprintf(", about %d paired cases would decide it", need)
			} else {
				what += ", more paired cases would decide it"
			}
			if !sig {
				undecided = append(undecided, what)
			}
		}
	}
	if ev.PAdjusted < o.Alpha && ev.PassToFail > ev.FailToPass {
		worse = append(worse, fmt.Sprintf("flips: %d pass → fail vs %d fail → pass (McNemar p %s, adjusted %s)", ev.PassToFail, ev.FailToPass, fmtP(ev.P), fmtP(ev.PAdjusted)))
	}
	if ev.PAdjusted < o.Alpha && ev.FailToPass > ev.PassToFail {
		better = append(better, fmt.Sprintf("flips: %d fail → pass vs %d pass → fail (McNemar p %s, adjusted %s)", ev.FailToPass, ev.PassToFail, fmtP(ev.P), fmtP(ev.PAdjusted)))
	}
	if n := len(ev.Confirmed); n > 0 {
		worse = append(worse, fmt.Sprintf("%d new %s (%s): %s", n, plural(n, "failure", "failures"), confirmedBy(ev), strings.Join(ids(ev.Confirmed), ", ")))
	}
	if ev.Deterministic && ev.FailToPass > 0 && ev.PassToFail == 0 {
		better = append(better, fmt.Sprintf("%d %s fixed (%s)", ev.FailToPass, plural(ev.FailToPass, "case", "cases"), ev.Basis))
	}
	if n := rep.refusalRegressions; n > 0 {
		if ev.Deterministic {
			worse = append(worse, fmt.Sprintf("%d answered %s now refused", n, plural(n, "case", "cases")))
		} else {
			same = false
			undecided = append(undecided, fmt.Sprintf("%d answered %s now refused, not confirmed: rerun both with --trials 3", n, plural(n, "case", "cases")))
		}
	}
	if n := len(ev.Flaky) + len(ev.Unconfirmed); n > 0 && len(worse) == 0 {
		undecided = append(undecided, ev.Advice)
	}
	if len(ev.Unconfirmed) > 0 {
		// a flip of a case whose noise is unknown is not shown to be noise
		same = false
	}
	switch {
	case len(worse) > 0:
		rep.Verdict, rep.Reasons = Regressed, worse
	case len(better) > 0:
		rep.Verdict, rep.Reasons = Better, better
	case same && rep.PairedCases > 0:
		rep.Verdict, rep.Reasons = Same, nil
	default:
		rep.Verdict, rep.Reasons = Inconclusive, undecided
		if len(undecided) == 0 {
			rep.Reasons = []string{"nothing was compared"}
		}
	}
	rep.Method = methodLine(rep, o)
}

// casesToDecide is about how many paired cases would settle a measure
// whose paired deltas have standard deviation sd and mean delta: enough to
// detect a change of that size, or to fit the interval inside the margin,
// whichever is fewer (CasesNeeded at 80% power); 0 when neither can be
// said.
func casesToDecide(sd, delta, margin, alpha float64) int {
	if math.IsNaN(sd) {
		return 0
	}
	need := 0
	if d := math.Abs(delta); d > 0 {
		need = CasesNeeded(sd, d, alpha, 0.8)
	}
	if gap := margin - math.Abs(delta); gap > 0 {
		if n := CasesNeeded(sd, gap, alpha, 0.8); n > 0 && (need == 0 || n < need) {
			need = n
		}
	}
	return need
}

func confirmedBy(ev FlipEvidence) string {
	if ev.Deterministic {
		return ev.Basis
	}
	return "each case's exact test against its record"
}

// methodLine is the one line printed under every comparison.
func methodLine(rep *Report, o Options) string {
	var ms []string
	for _, m := range rep.Metrics {
		if m.Gated && m.Margin != nil {
			ms = append(ms, fmt.Sprintf("%s ±%g", m.Name, *m.Margin))
		}
	}
	n := countGated(rep.Metrics)
	adj := fmt.Sprintf("Holm over %d %s + flips", n, plural(n, "measure", "measures"))
	if ev := rep.FlipEvidence; ev != nil && ev.CasesTested > 0 {
		adj = fmt.Sprintf("Holm over %d %s + flips + %d %s", n, plural(n, "measure", "measures"), ev.CasesTested, plural(ev.CasesTested, "case", "cases"))
	}
	if f := rep.Family; f.Comparisons > 1 {
		adj += fmt.Sprintf(", in one family with the other %d %s of the matrix (%d tests)", f.Comparisons-1, plural(f.Comparisons-1, "comparison", "comparisons"), f.Tests)
	}
	if o.Multiplicity == NoAdjustment {
		adj = "no multiplicity adjustment"
	}
	h := 0
	if rep.FlipEvidence != nil {
		h = rep.FlipEvidence.HistoryRuns
	}
	return fmt.Sprintf("paired sign-flip test per measure, %s, α %g; margins %s; %d history %s",
		adj, o.Alpha, strings.Join(ms, ", "), h, plural(h, "run", "runs"))
}

func fmtP(p float64) string {
	if p < 0.001 {
		return "<0.001"
	}
	return fmt.Sprintf("%.3f", p)
}

// sd is the sample standard deviation of the paired deltas of s.
func sdOf(s series) float64 {
	n := len(s.b)
	if n < 2 {
		return math.NaN()
	}
	var sum float64
	for i := range s.b {
		sum += s.c[i] - s.b[i]
	}
	mu := sum / float64(n)
	var ss float64
	for i := range s.b {
		d := s.c[i] - s.b[i] - mu
		ss += d * d
	}
	return math.Sqrt(ss / float64(n-1))
}
