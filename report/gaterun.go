package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/gate"
)

// GateRun is what `assay gate` shows of one run checked against its gates.
type GateRun struct {
	Run *assay.Run
	// Note is a line shown under the run's header (for example, that the
	// floors file does not exist yet); "" for none.
	Note string
	// Trials is the run's trial statistics; shown when it has more than
	// one trial.
	Trials assay.TrialStats
	// Verdict holds the gates checked and their results.
	Verdict gate.Verdict
	// NotApplied are the gates scoped to another variant than the run's.
	NotApplied []gate.Expr
	// Sensitivity is the line on what the paired gates could detect
	// (Sensitivity); "" for none.
	Sensitivity string
}

// GateHead writes the header of a gate check: the run, its suite and
// status, and g.Note.
func GateHead(w io.Writer, g GateRun) {
	fmt.Fprintf(w, "run %s  suite %s  %s\n", g.Run.RunID, Escape(g.Run.Suite.Name), g.Run.Status)
	if g.Note != "" {
		fmt.Fprintln(w, g.Note)
	}
}

// GateBody writes the rest of a gate check after its header: the trial
// statistics, one line per gate, the gates not checked because they are
// scoped to another variant.
func GateBody(w io.Writer, g GateRun) {
	if st := g.Trials; st.Trials > 1 {
		fmt.Fprintf(w, "trials %d: pass@%d %s  pass^%d %s  flaky %d", st.Trials, st.Trials, rateText(st.PassAny), st.Trials, rateText(st.PassAll), len(st.Flaky))
		if len(st.Flaky) > 0 {
			fmt.Fprintf(w, ": %s", strings.Join(st.Flaky, ", "))
		}
		fmt.Fprintln(w)
	}
	for _, r := range g.Verdict.Results {
		fmt.Fprintln(w, Escape(gate.Line(r)))
	}
	// A gate scoped to another variant than the run's does not apply to
	// it: say so, rather than leave it out without a word.
	for _, e := range g.NotApplied {
		fmt.Fprintf(w, "– %s  not checked: the run is variant %s\n", e.Text, gate.VariantName(g.Run.Variant))
	}
}

// GateTally writes the count of gates held and failed, then the
// sensitivity line.
func GateTally(w io.Writer, g GateRun) {
	nFail := len(g.Verdict.Failed())
	fmt.Fprintf(w, "gates: %d held, %d failed\n", len(g.Verdict.Results)-nFail, nFail)
	if g.Sensitivity != "" {
		fmt.Fprintln(w, g.Sensitivity)
	}
}

// Ratchet writes what raising the floors did: notRaised says why they
// were not raised ("" when they were considered); changes are the floors
// set or raised, written to path.
func Ratchet(w io.Writer, notRaised string, changes []gate.FloorChange, path string) {
	switch {
	case notRaised != "":
		fmt.Fprintf(w, "floors not raised: %s\n", notRaised)
	case len(changes) == 0:
		fmt.Fprintf(w, "floors unchanged: nothing rose above its floor\n")
	default:
		for _, ch := range changes {
			verb := "raised"
			if ch.Old == nil {
				verb = "set"
			}
			fmt.Fprintf(w, "%s floor %s\n", verb, ch)
		}
		fmt.Fprintf(w, "wrote %s\n", path)
	}
}

func rateText(p *float64) string {
	if p == nil {
		return "n/a"
	}
	return gate.FormatValue(*p)
}
