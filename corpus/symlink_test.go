package corpus

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestLoadFollowsSymlinks: a corpus directory that is a symlink, and
// symlinked directories and files inside it, are loaded with the paths
// through the links; a directory linked twice is walked once; a link to
// an enclosing directory is a loop, an error naming it.
func TestLoadFollowsSymlinks(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks")
	}
	dir := t.TempDir()
	write := func(p, text string) {
		t.Helper()
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, p string) {
		t.Helper()
		if err := os.Symlink(target, filepath.Join(dir, p)); err != nil {
			t.Fatal(err)
		}
	}
	write("real/a.md", "# A\n")
	write("other/b.txt", "b\n")
	write("files/c.md", "# C\n")
	link("real", "docs")
	link("../other", "real/linked")
	link("../other", "real/twice")
	link("../files/c.md", "real/c.md")
	docs, err := Load(filepath.Join(dir, "docs"))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, d := range docs {
		ids = append(ids, d.ID)
	}
	if got := strings.Join(ids, " "); got != "a.md c.md linked/b.txt" {
		t.Errorf("ids = %q, want a.md c.md linked/b.txt", got)
	}

	link("../real", "other/back")
	_, err = Load(filepath.Join(dir, "docs"))
	want := filepath.Join(dir, "docs/linked/back") + ": a symlink loop: it leads back to " + filepath.Join(dir, "docs") + ", which encloses it"
	if err == nil || err.Error() != want {
		t.Errorf("a loop: err = %v, want %s", err, want)
	}
	if err := os.Remove(filepath.Join(dir, "other/back")); err != nil {
		t.Fatal(err)
	}

	link("missing.md", "real/dangling.md")
	if _, err = Load(filepath.Join(dir, "docs")); err == nil || !strings.Contains(err.Error(), "dangling.md") {
		t.Errorf("a dangling link to a document: err = %v", err)
	}
}
