package cli

import (
	"fmt"

	"github.com/assay-eval/assay/harness"
)

// UsageError is a harness.Usage error (exit 2) with a message and an
// optional hint line.
func UsageError(hint string, format string, args ...any) error {
	return &harness.Error{Kind: harness.Usage, Err: fmt.Errorf(format, args...), Hint: hint}
}

// InputError is a harness.Input error (exit 2); the message is printed as
// it is (usually positioned "file:line:col: msg").
func InputError(err error) error { return &harness.Error{Kind: harness.Input, Err: err} }

func usageError(hint string, format string, args ...any) error {
	return UsageError(hint, format, args...)
}

func inputError(err error) error { return InputError(err) }

func gateErrors(errs []string) error { return harness.GateErrors(errs) }
