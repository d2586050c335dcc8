package cli

import (
	"github.com/assay-eval/assay/harness"
)

func usageError(hint string, format string, args ...any) error {
	return harness.UsageError(hint, format, args...)
}

func inputError(err error) error { return harness.InputError(err) }

func gateErrors(errs []string) error { return harness.GateErrors(errs) }

func shortID(id string) string { return harness.ShortID(id) }
