package store

import (
	"os"
	"path/filepath"
	"testing"
)

// TestMayBeInRepo: a directory under no repository is known as such
// without git; a .git directory or file above it, or a bare repository's
// entries, make it a candidate.
func TestMayBeInRepo(t *testing.T) {
	t.Setenv("GIT_DIR", "")
	t.Setenv("GIT_WORK_TREE", "")
	dir := t.TempDir()
	deep := filepath.Join(dir, "a", "b")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	// Whether the temporary directory itself is under a repository.
	outside := mayBeInRepo(deep)
	if err := os.WriteFile(filepath.Join(dir, "a", ".git"), []byte("gitdir: /nowhere\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if !mayBeInRepo(deep) {
		t.Error("a .git file above the directory is not seen")
	}
	bare := filepath.Join(dir, "bare")
	for _, p := range []string{"objects", "refs"} {
		if err := os.MkdirAll(filepath.Join(bare, p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if mayBeInRepo(bare) != outside {
		t.Error("objects and refs without HEAD made a bare repository")
	}
	if err := os.WriteFile(filepath.Join(bare, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if !mayBeInRepo(bare) {
		t.Error("a bare repository is not seen")
	}
	t.Setenv("GIT_DIR", filepath.Join(dir, "elsewhere"))
	if !mayBeInRepo(filepath.Join(dir, "a")) {
		t.Error("GIT_DIR in the environment is ignored")
	}
}
