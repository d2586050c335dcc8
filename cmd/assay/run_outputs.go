package main

import (
	"github.com/assay-eval/assay"
)

// writeCIOutputs writes --junit, --markdown, --badge and --report-dir.
// TODO(lead): wire the report package's CI renderers.
func writeCIOutputs(env *Env, f *runFlags, run *assay.Run, pass bool) error {
	return nil
}

// printComparison compares run with base, prints the comparison and reports
// whether it regressed.
// TODO(lead): wire package compare.
func printComparison(env *Env, base, run *assay.Run) (bool, error) {
	return false, nil
}
