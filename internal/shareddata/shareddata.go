// Package shareddata locates the project's shared test data (the directory
// `shared/` beside the repository: datasets, seed fixtures, trec_eval
// conformance files) for tests and benchmarks. Tests read it at run time;
// nothing of it is copied into the repository.
//
// When it is missing a test that needs it is skipped on a developer's
// machine, with the reason, and fails under CI (the CI environment variable
// set to anything but "" or "false", as GitHub Actions and .ci/run do), where
// a skipped conformance test would pass without checking anything. Go tests
// call Dir; testscripts start with `[!shared] skip '...'`, a condition that
// cmd/assay's TestScripts answers with Find and Required, so both follow the
// one rule.
package shareddata

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// Find returns the absolute path of ../shared beside the module root (the
// directory holding go.mod at or above dir), or an error saying why there is
// none.
func Find(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above " + dir)
		}
		dir = parent
	}
	shared := filepath.Join(filepath.Dir(dir), "shared")
	if fi, err := os.Stat(shared); err != nil || !fi.IsDir() {
		return "", errors.New("shared data not found at " + shared)
	}
	return shared, nil
}

// Required reports whether a missing ../shared is a failure rather than a
// skip: true under CI.
func Required() bool {
	ci := os.Getenv("CI")
	return ci != "" && ci != "false" && ci != "0"
}

// Dir returns the absolute path of ../shared beside the module root above
// the working directory. When it is missing the test is skipped, or fails
// under CI (see Required).
func Dir(tb testing.TB) string {
	tb.Helper()
	shared, err := Find(".")
	if err != nil {
		if Required() {
			tb.Fatal(err.Error() + " (CI must provide ../shared)")
		}
		tb.Skip(err.Error() + " (the test needs ../shared beside the repository)")
	}
	return shared
}
