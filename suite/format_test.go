package suite

import (
	"os"
	"path/filepath"
	"testing"
)

// sharedDir locates ../shared beside the repository root (the directory
// holding go.mod), or skips the test when it is not there.
func sharedDir(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skip("no go.mod above the working directory")
		}
		dir = parent
	}
	shared := filepath.Join(dir, "..", "shared")
	if _, err := os.Stat(shared); err != nil {
		t.Skipf("shared data not found at %s", shared)
	}
	return shared
}

func seed(t testing.TB, rel string) string {
	return filepath.Join(sharedDir(t), "seed-fixtures", rel)
}

func dataset(t testing.TB, rel string) string {
	return filepath.Join(sharedDir(t), "datasets", rel)
}
