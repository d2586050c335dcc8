package shareddata

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFind(t *testing.T) {
	base := t.TempDir()
	repo := filepath.Join(base, "repo")
	sub := filepath.Join(repo, "a", "b")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, "go.mod"), []byte("module x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Find(sub); err == nil || !strings.Contains(err.Error(), "shared data not found at "+filepath.Join(base, "shared")) {
		t.Fatalf("missing ../shared: err = %v", err)
	}
	// A file named shared is not the data directory.
	if err := os.WriteFile(filepath.Join(base, "shared"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Find(sub); err == nil {
		t.Fatal("a file named shared was taken for the data directory")
	}
	os.Remove(filepath.Join(base, "shared"))
	if err := os.Mkdir(filepath.Join(base, "shared"), 0o755); err != nil {
		t.Fatal(err)
	}
	got, err := Find(sub)
	if err != nil || got != filepath.Join(base, "shared") {
		t.Fatalf("Find = %q, %v", got, err)
	}
}

func TestRequired(t *testing.T) {
	for v, want := range map[string]bool{"": false, "false": false, "0": false, "true": true, "1": true} {
		t.Setenv("CI", v)
		if got := Required(); got != want {
			t.Errorf("CI=%q: Required() = %v, want %v", v, got, want)
		}
	}
}
