package cli

import (
	"os"

	"github.com/assay-eval/assay/harness"
)

func usageError(hint string, format string, args ...any) error {
	return harness.UsageError(hint, format, args...)
}

func inputError(err error) error { return harness.InputError(err) }

func gateErrors(errs []string) error { return harness.GateErrors(errs) }

func shortID(id string) string { return harness.ShortID(id) }

// sameFile reports whether a (which may not exist yet) is the file b.
func sameFile(a, b string) bool {
	ai, err := os.Stat(a)
	if err != nil {
		return false
	}
	bi, err := os.Stat(b)
	return err == nil && os.SameFile(ai, bi)
}
