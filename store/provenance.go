package store

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/assay-eval/assay"
)

// GitInfo returns the commit of the git repository holding dir and whether
// its tracked files have uncommitted changes, or nil when there is no git
// or no repository. It runs the git command (with a timeout), unless no
// directory from dir up to the root can be a repository (mayBeInRepo):
// most runs outside a repository then start no process for it.
func GitInfo(dir string) *assay.GitInfo {
	if !mayBeInRepo(dir) {
		return nil
	}
	if _, err := exec.LookPath("git"); err != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	git := func(args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
		out, err := cmd.Output()
		return strings.TrimSpace(string(out)), err
	}
	commit, err := git("rev-parse", "--verify", "HEAD")
	if err != nil || commit == "" {
		return nil
	}
	status, err := git("status", "--porcelain", "--untracked-files=no")
	if err != nil {
		return &assay.GitInfo{Commit: commit}
	}
	return &assay.GitInfo{Commit: commit, Dirty: status != ""}
}

// mayBeInRepo reports whether git could find a repository for dir: one of
// dir and the directories above it holds a .git (a directory, or the file
// of a worktree or submodule) or is itself a bare repository (HEAD, objects
// and refs), or the environment names the repository (GIT_DIR,
// GIT_WORK_TREE). It only looks at names; git decides the rest.
func mayBeInRepo(dir string) bool {
	if os.Getenv("GIT_DIR") != "" || os.Getenv("GIT_WORK_TREE") != "" {
		return true
	}
	d, err := filepath.Abs(dir)
	if err != nil {
		return true
	}
	for {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return true
		}
		if isBareRepo(d) {
			return true
		}
		up := filepath.Dir(d)
		if up == d {
			return false
		}
		d = up
	}
}

// isBareRepo reports whether d has the entries of a bare repository.
func isBareRepo(d string) bool {
	for _, name := range []string{"HEAD", "objects", "refs"} {
		if _, err := os.Stat(filepath.Join(d, name)); err != nil {
			return false
		}
	}
	return true
}
