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

// TestGitInfoInWorktreeAndBareRepo: a directory of a linked worktree (its
// .git is a file) and a bare repository are repositories to GitInfo, as
// they are to git; a directory under no repository starts no git (the
// check is by name only, so a PATH without git proves it).
func TestGitInfoInWorktreeAndBareRepo(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	main := filepath.Join(dir, "main")
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q", main)
	writeFile(t, filepath.Join(main, "suite.yaml"), "assay: 1\n")
	git("-C", main, "add", "suite.yaml")
	git("-C", main, "commit", "-q", "-m", "one")
	wt := filepath.Join(dir, "wt")
	git("-C", main, "worktree", "add", "-q", wt)
	sub := filepath.Join(wt, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if g := store.GitInfo(sub); g == nil || len(g.Commit) != 40 {
		t.Errorf("GitInfo in a linked worktree = %+v; want its commit", g)
	}
	bare := filepath.Join(dir, "bare.git")
	git("clone", "-q", "--bare", main, bare)
	if g := store.GitInfo(bare); g == nil || len(g.Commit) != 40 {
		t.Errorf("GitInfo of a bare repository = %+v; want its commit", g)
	}
}
