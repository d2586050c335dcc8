package harness

import (
	"errors"
	"fmt"
	"strings"
)

// Kind classifies the errors Run returns, so that a caller maps each to
// what it does (the CLI: an exit code in its one switch).
type Kind int

// The kinds of Error.
const (
	// Usage: a plan or option that cannot work (exit 2).
	Usage Kind = iota + 1
	// Input: a suite, target, store or file that cannot be read or
	// written, usually with a positioned message (exit 2).
	Input
	// Incomplete: the run stopped before every case ran; a partial run
	// never passes (exit 2).
	Incomplete
	// GateFailed: a gate, floor or ordering failed (exit 1).
	GateFailed
	// Regressed: the comparison with the baseline regressed (exit 1).
	Regressed
)

// Error is an error of a Kind. Err is nil when there is nothing more to
// say than the kind (the result already shows why); Hint is a suggested
// remedy.
type Error struct {
	Kind Kind
	Err  error
	Hint string
}

func (e *Error) Error() string {
	if e.Err == nil {
		switch e.Kind {
		case GateFailed:
			return "a gate failed"
		case Regressed:
			return "the comparison regressed"
		case Incomplete:
			return "the run is incomplete"
		}
		return fmt.Sprintf("harness error %d", e.Kind)
	}
	return e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }

// KindOf returns the Kind of err (an *Error in its chain), or 0.
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return 0
}

// usageError is a Usage error with a message and an optional hint.
func usageError(hint string, format string, args ...any) error {
	return &Error{Kind: Usage, Err: fmt.Errorf(format, args...), Hint: hint}
}

// PlanError is a Usage error about a field of a plan (Plan, MergePlan),
// named as Go spells it ("Trials"). Its message and hint name fields as
// {Field}; Error writes them as the field names, and a caller that
// presents the fields otherwise (the CLI, as flags) writes them its own
// way with Text.
type PlanError struct {
	Field  string
	Format string // a fmt format; {Name} marks a field's name
	Args   []any
	Hint   string // a remedy, "" for none; {Name} as in Format
}

func (e *PlanError) Error() string { msg, _ := e.Text(nil); return msg }

// Text is the message and the hint with each {Name} written as name(Name)
// (nil: Name itself).
func (e *PlanError) Text(name func(field string) string) (msg, hint string) {
	return fmt.Sprintf(fill(e.Format, name), e.Args...), fill(e.Hint, name)
}

// fill writes each {Name} of s as name(Name) (nil: Name), a % in a name
// doubled so that s stays a format.
func fill(s string, name func(string) string) string {
	if name == nil {
		name = func(f string) string { return f }
	}
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '{')
		if i < 0 {
			break
		}
		j := strings.IndexByte(s[i+1:], '}')
		if j < 0 {
			break
		}
		b.WriteString(s[:i])
		b.WriteString(strings.ReplaceAll(name(s[i+1:i+1+j]), "%", "%%"))
		s = s[i+2+j:]
	}
	b.WriteString(s)
	return b.String()
}

// planError is a Usage error of a PlanError.
func planError(field, hint, format string, args ...any) error {
	return &Error{Kind: Usage, Err: &PlanError{Field: field, Format: format, Args: args, Hint: hint}}
}

// inputError is an Input error; the message is shown as it is (usually
// positioned "file:line:col: msg").
func inputError(err error) error { return &Error{Kind: Input, Err: err} }

// gateErrors is the input error of gates that measure nothing as written
// (gate.Verdict.Errors): the first, and how many more.
func gateErrors(errs []string) error {
	if len(errs) == 1 {
		return inputError(errors.New(errs[0]))
	}
	return inputError(fmt.Errorf("%s (and %d more such gate(s))", errs[0], len(errs)-1))
}

// GateErrors is gateErrors for callers outside the package.
func GateErrors(errs []string) error { return gateErrors(errs) }
