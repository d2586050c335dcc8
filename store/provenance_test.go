package store_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/assay-eval/assay/store"
)

func TestGitInfo(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	if store.GitInfo(dir) != nil {
		t.Fatal("GitInfo outside a repository is not nil")
	}
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	if store.GitInfo(dir) != nil {
		t.Error("GitInfo of a repository without commits is not nil")
	}
	writeFile(t, filepath.Join(dir, "suite.yaml"), "assay: 1\n")
	git("add", "suite.yaml")
	git("commit", "-q", "-m", "one")
	g := store.GitInfo(dir)
	if g == nil || len(g.Commit) != 40 || g.Dirty {
		t.Fatalf("GitInfo = %+v; want a 40-hex commit, clean", g)
	}
	os.WriteFile(filepath.Join(dir, "untracked.txt"), []byte("x"), 0o644)
	if g := store.GitInfo(dir); g == nil || g.Dirty {
		t.Errorf("an untracked file made the tree dirty: %+v", g)
	}
	os.WriteFile(filepath.Join(dir, "suite.yaml"), []byte("assay: 1\nname: x\n"), 0o644)
	if g := store.GitInfo(filepath.Join(dir)); g == nil || !g.Dirty {
		t.Errorf("a modified tracked file did not make the tree dirty: %+v", g)
	}
}
