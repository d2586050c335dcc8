package store

import (
	"context"
	"os/exec"
	"strings"
	"time"

	"github.com/assay-eval/assay"
)

// GitInfo returns the commit of the git repository holding dir and whether
// its tracked files have uncommitted changes, or nil when there is no git
// or no repository. It runs the git command (with a timeout).
func GitInfo(dir string) *assay.GitInfo {
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
