package cli

import (
	"fmt"
	"math"
	"strings"

	"github.com/assay-eval/assay/gate"
	"github.com/assay-eval/assay/harness"
)

// NoGates is the one line a run prints when nothing but errors decides its
// exit status: a single run (not a matrix) with no gate, no --baseline and
// no Strict (nor gates all left unchecked for want of a baseline: that
// run fails, or passes by --allow-no-baseline, saying so). It names a gate the run would have held, from what it
// achieved: pass_rate rounded down to two decimals when cases were graded,
// else the first metric of the run. Empty when the exit status checks
// something.
func NoGates(r *harness.Result, p harness.Plan) string {
	if r == nil || r.Matrix || len(r.Runs) != 1 || p.Strict || p.Baseline != "" || r.NoBaseline {
		return ""
	}
	if len(r.Verdicts) == 1 && (len(r.Verdicts[0].Results) > 0 || len(r.Verdicts[0].Errors) > 0) {
		return ""
	}
	run := r.Runs[0]
	if sh := run.Shard; sh != nil {
		return fmt.Sprintf("shard %d/%d of group %s: its %d gate(s) are checked on the whole run by 'assay merge %s'", sh.Index, sh.Count, sh.Group, len(sh.Gates), sh.Group)
	}
	suggest := ""
	switch {
	case run.Summary.PassRate != nil:
		suggest = fmt.Sprintf("pass_rate >= %s", gate.FormatValue(math.Floor(*run.Summary.PassRate*100)/100))
	default:
		for _, m := range run.Options.Metrics {
			if agg, ok := run.Summary.Metrics[m]; ok && agg.N > 0 {
				suggest = fmt.Sprintf("%s >= %s", m, gate.FormatValue(math.Floor(agg.Mean*100)/100))
				break
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "no gates: the exit status checks nothing (%d of %d graded cases failed)", run.Summary.Graded-run.Summary.Passed, run.Summary.Graded)
	if suggest != "" {
		fmt.Fprintf(&b, "; add one, e.g. --gate '%s' or gates: in the suite, or use --strict", suggest)
	} else {
		b.WriteString("; add a gate (--gate or gates: in the suite), or use --strict")
	}
	return b.String()
}
