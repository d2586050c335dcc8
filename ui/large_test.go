package ui

import (
	"testing"

	"github.com/assay-eval/assay/internal/largetest"
)

// skipUnlessLarge skips a test that writes hundreds of megabytes unless
// ASSAY_TEST_LARGE=1 (package largetest).
func skipUnlessLarge(t *testing.T, what string) {
	t.Helper()
	largetest.Skip(t, what)
}
