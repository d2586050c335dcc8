package report

import (
	"fmt"
	"io"
	"strconv"

	"github.com/assay-eval/assay"
)

// MaxCaseAnnotations is how many failing cases RunGitHub annotates; GitHub
// shows at most ten error and ten warning annotations of a step, so the
// rest are counted in one notice instead.
const MaxCaseAnnotations = 10

// RunGitHub writes a run's failures as GitHub Actions workflow commands,
// so that they land on their suite lines in a pull request: "::error" for
// each failed gate (at the gate's line when it was declared in the suite),
// and "::warning" for each failing or errored case, at the case's line
// (CaseResult.Source), its first failed check as the message. A failing
// case is a warning, not an error: the gates decide whether the run fails.
// At most MaxCaseAnnotations cases are annotated; a last "::notice" counts
// the others. An incomplete run gets one "::error". Values are escaped as
// LintGitHub escapes them.
func RunGitHub(w io.Writer, run *assay.Run) error {
	var err error
	emit := func(level, src, title, msg string) {
		if err != nil {
			return
		}
		props := "title=" + ghProperty(title)
		if file, line := splitSource(src); file != "" {
			props = "file=" + ghProperty(file) + ",line=" + strconv.Itoa(line) + "," + props
		}
		_, err = fmt.Fprintf(w, "::%s %s::%s\n", level, props, ghData(Escape(msg)))
	}
	name := nonEmpty(run.Suite.Name, "suite")
	if run.Status == assay.StatusIncomplete {
		emit("error", "", "assay "+name, "the run is incomplete: not every case was observed, so it cannot pass")
	}
	for _, g := range run.Gates {
		if !g.Pass {
			emit("error", g.Source, "assay gate "+g.Expr, gateFact(g))
		}
	}
	shown, more := 0, 0
	cerr := run.EachCase(func(c assay.CaseResult) error {
		if c.Error == nil && !(c.Graded() && !c.Passed()) {
			return nil
		}
		if shown == MaxCaseAnnotations {
			more++
			return nil
		}
		shown++
		title := "assay case " + c.ID
		if c.Trial > 0 {
			title += " (trial " + strconv.Itoa(c.Trial) + ")"
		}
		msg := ""
		if c.Error != nil {
			msg = fmt.Sprintf("%s: %s", c.Error.Class, c.Error.Message)
		} else {
			_, msg = firstFailure(c)
		}
		emit("warning", c.Source, title, msg)
		return nil
	})
	if cerr != nil {
		return cerr
	}
	if more > 0 {
		emit("notice", "", "assay "+name, fmt.Sprintf("%d more failing cases are not annotated (see the run's report)", more))
	}
	return err
}
