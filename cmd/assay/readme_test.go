package main

import (
	"context"
	"crypto/sha256"
	"debug/buildinfo"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/assay-eval/assay/internal/filelock"
	"github.com/assay-eval/assay/internal/largetest"
)

// TestREADMECommands checks the README's two commands: the test command
// is the one .ci/run runs, and the install-and-run command, run exactly as
// written (with GOPATH pointed at a directory of its own, so the test
// installs nothing of the user's), installs a static binary that runs the
// quickstart and names its version.
//
// Running the install links the 40 MB binary whenever the code changed
// since the last run (several seconds of CPU, the most of any Go test of
// this package), so it is one of the large tests (internal/largetest): it
// runs when ASSAY_TEST_LARGE=1, as in the first go test pass of .ci/run;
// the checks of the commands' text run every time.
//
// That GOPATH is kept from one run of the test to the next, one per
// checkout (readmeGOPATH), so that the go command, which installs nothing
// when the binary in it is up to date, links the binary only when the
// code changed: linking it was most of this test's CPU time.
func TestREADMECommands(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```sh\n(.*?)```").FindAllStringSubmatch(string(readme), -1)
	if len(blocks) != 2 {
		t.Fatalf("README has %d sh blocks, want exactly two (install-and-run, test)", len(blocks))
	}
	install := strings.TrimSpace(blocks[0][1])
	testCmd := strings.TrimSpace(blocks[1][1])
	if !strings.HasPrefix(install, "CGO_ENABLED=0 go install ./cmd/assay ") || strings.Contains(install, "\n") || !strings.Contains(install, "run examples/quickstart/suite.yaml") {
		t.Fatalf("first README command does not install and run the quickstart: %q", install)
	}
	ci, err := os.ReadFile(filepath.Join(root, ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(testCmd) + `$`).Match(ci) {
		t.Errorf(".ci/run does not run the README's test command %q", testCmd)
	}
	if testing.Short() {
		t.Skip("builds and installs the binary")
	}
	largetest.Skip(t, "installs the binary with the go command (it links it whenever the code changed)")

	modcache, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	gopath := readmeGOPATH(t, root)
	store := filepath.Join(t.TempDir(), "store")
	cmd := exec.Command("sh", "-c", install)
	cmd.Dir = root
	cmd.Env = append(os.Environ(),
		"GOPATH="+gopath,
		"GOBIN=",
		"GOMODCACHE="+strings.TrimSpace(string(modcache)),
		"ASSAY_STORE="+store,
		"NO_COLOR=1",
		// A fresh machine stamps the checkout's commit (-buildvcs=auto);
		// this one's go env may turn it off.
		"GOFLAGS=-buildvcs=auto",
	)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", install, err, out)
	}
	for _, want := range []string{"suite quickstart · target builtin · complete", "✓ pass_rate >= 0.8"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("README command output lacks %q:\n%s", want, out)
		}
	}
	if _, err := os.Stat(filepath.Join(store, "assay.db")); err != nil {
		t.Errorf("the run was not stored: %v", err)
	}

	// The binary installed is static: its build settings say CGO_ENABLED=0.
	bin := filepath.Join(gopath, "bin", "assay")
	bi, err := buildinfo.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	cgo := ""
	for _, s := range bi.Settings {
		if s.Key == "CGO_ENABLED" {
			cgo = s.Value
		}
	}
	if cgo != "0" {
		t.Errorf("%s was built with CGO_ENABLED=%q, want 0 (a static binary)", bin, cgo)
	}
	// assay version names the module and its version, and the commit of
	// the checkout it was built from (the go command records it in a git
	// checkout: the clean clone of CI is one).
	out, err = exec.Command(bin, "version").CombinedOutput()
	if err != nil {
		t.Fatalf("assay version: %v\n%s", err, out)
	}
	if want := "\nmodule " + bi.Main.Path + " " + bi.Main.Version + "\n"; !strings.Contains(string(out), want) {
		t.Errorf("assay version lacks %q:\n%s", want, out)
	}
	rev := ""
	for _, st := range bi.Settings {
		if st.Key == "vcs.revision" {
			rev = st.Value
		}
	}
	if rev == "" {
		// The go command stamps a clone (CI runs on one); it does not stamp
		// every checkout (a git worktree, a tarball).
		if os.Getenv("CI") != "" {
			t.Fatalf("the go command recorded no commit in %s (CI runs on a clone, which it stamps)", bin)
		}
		t.Logf("no commit recorded (not a plain git clone): the commit line is not checked")
		return
	}
	if head, err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Output(); err == nil && strings.TrimSpace(string(head)) != rev {
		t.Errorf("the binary records commit %s, the checkout is at %s", rev, head)
	}
	if want := "\ncommit " + rev; !strings.Contains(string(out), want) {
		t.Errorf("assay version lacks %q:\n%s", want, out)
	}
}

// readmeGOPATH is the GOPATH TestREADMECommands installs into: a directory
// of the user's cache named after the checkout at root, kept between runs
// and locked for the test (two test runs of one checkout at once take
// turns), or a temporary directory when the user cache cannot hold it.
func readmeGOPATH(t *testing.T, root string) string {
	t.Helper()
	cache, err := os.UserCacheDir()
	if err != nil {
		t.Logf("no user cache directory (%v): installing into a temporary GOPATH", err)
		return t.TempDir()
	}
	sum := sha256.Sum256([]byte(root))
	dir := filepath.Join(cache, "assay-test", "readme-gopath-"+hex.EncodeToString(sum[:8]))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Logf("%v: installing into a temporary GOPATH", err)
		return t.TempDir()
	}
	lock, err := filelock.Acquire(context.Background(), dir, 10*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lock.Release() })
	return dir
}
