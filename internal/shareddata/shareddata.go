// Package shareddata locates the project's shared test data (the directory
// `shared/` beside the repository: datasets, seed fixtures, trec_eval
// conformance files) for tests and benchmarks. Tests read it at run time;
// nothing of it is copied into the repository.
package shareddata

import (
	"os"
	"path/filepath"
	"testing"
)

// Dir returns the absolute path of ../shared beside the module root (the
// directory holding go.mod above the working directory). When it is missing
// the test is skipped on a developer's machine, and fails under CI (CI set),
// where a skipped conformance test would pass without checking anything.
func Dir(tb testing.TB) string {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			missing(tb, "no go.mod above the test's directory")
		}
		dir = parent
	}
	shared := filepath.Join(filepath.Dir(dir), "shared")
	if _, err := os.Stat(shared); err != nil {
		missing(tb, "shared data not found at "+shared)
	}
	return shared
}

func missing(tb testing.TB, why string) {
	tb.Helper()
	if os.Getenv("CI") != "" {
		tb.Fatal(why + " (CI must provide ../shared)")
	}
	tb.Skip(why)
}
