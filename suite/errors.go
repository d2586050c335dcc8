package suite

import "github.com/assay-eval/assay/internal/diag"

// PosError is an error at a place in a file, printed "file:line:col: msg"
// ("file:line: msg" when the column is unknown, "file: msg" when the line is).
// It is assay's one positioned-error type (internal/diag), shared with
// target files, gates and floors.
type PosError = diag.PosError

// Errorf returns a *PosError.
func Errorf(file string, line, col int, format string, args ...any) error {
	return diag.Errorf(file, line, col, format, args...)
}

// oneLine escapes line breaks so that a message quoting user input (a
// regexp, an alias name) stays one line.
func oneLine(s string) string { return diag.OneLine(s) }

// oneLineProblems applies oneLine to every problem's message.
func oneLineProblems(ps []problem) {
	for i := range ps {
		ps[i].msg = oneLine(ps[i].msg)
	}
}

// problem is a structural fault found while loading: Load refuses the suite
// for it, Lint reports it as an error finding.
type problem struct {
	line, col int
	src       string // "file:line" when the fault is not in the suite file itself
	file      string // the file of line and col when it is not the suite file (a JSONL cases file)
	msg       string
}
