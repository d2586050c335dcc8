// Package largetest decides whether the large tests run: those that
// generate 100,000 cases or hundreds of megabytes of input to show that
// memory, time or a refusal does not depend on the size. They run when the
// environment sets ASSAY_TEST_LARGE=1 (the first go test pass of .ci/run
// does, so CI runs them once) and are skipped otherwise, with the reason;
// a smaller form of the same check runs every time.
//
// Go tests call Skip; testscripts use the [large] condition, which
// cmd/assay's TestScripts answers with Enabled.
package largetest

import (
	"os"
	"testing"
)

// EnvVar is the environment variable that turns the large tests on ("1").
const EnvVar = "ASSAY_TEST_LARGE"

// Enabled reports whether the large tests run: $ASSAY_TEST_LARGE is "1".
func Enabled() bool { return os.Getenv(EnvVar) == "1" }

// Skip skips the test unless the large tests run; what says what makes
// it large (for example "writes a 100,000-case suite").
func Skip(tb testing.TB, what string) {
	tb.Helper()
	if !Enabled() {
		tb.Skipf("%s: set %s=1 to run it", what, EnvVar)
	}
}
