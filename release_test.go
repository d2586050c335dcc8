package assay_test

import (
	"debug/elf"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/assay-eval/assay/internal/shareddata"
)

// releaseBuild is the release build of one binary for this machine: what
// the tests run, what the Dockerfile's build stage runs, and what
// docs/ci.md tells a user to run.
const releaseBuild = "goreleaser build --snapshot --single-target --clean"

// dockerInstr is one instruction of a Dockerfile: its keyword (upper
// case) and its arguments, continuation lines joined.
type dockerInstr struct {
	Line int
	Cmd  string
	Args string
}

// readDockerfile splits a Dockerfile into stages of instructions: a
// line-level reading (comments, blank lines and backslash continuations),
// enough for the checks below. No Dockerfile parser is a dependency of the
// module, and hadolint is not packaged by Debian bookworm.
func readDockerfile(t *testing.T, path string) [][]dockerInstr {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var stages [][]dockerInstr
	var cur *dockerInstr
	for i, line := range strings.Split(string(b), "\n") {
		trimmed := strings.TrimSpace(line)
		if cur == nil && (trimmed == "" || strings.HasPrefix(trimmed, "#")) {
			continue
		}
		if cur == nil {
			cmd, args, _ := strings.Cut(trimmed, " ")
			cur = &dockerInstr{Line: i + 1, Cmd: strings.ToUpper(cmd)}
			trimmed = args
		}
		cont := strings.HasSuffix(trimmed, "\\")
		cur.Args = strings.TrimSpace(cur.Args + " " + strings.TrimSuffix(trimmed, "\\"))
		if cont {
			continue
		}
		if cur.Cmd == "FROM" || len(stages) == 0 {
			stages = append(stages, nil)
		}
		stages[len(stages)-1] = append(stages[len(stages)-1], *cur)
		cur = nil
	}
	return stages
}

// TestDockerfile checks the image recipe: the build stage runs the release
// build (releaseBuild), the final stage is scratch (or distroless static)
// with no shell and nothing run in it, CA certificates, a non-root user,
// and assay as the exec-form entrypoint.
func TestDockerfile(t *testing.T) {
	t.Parallel()
	stages := readDockerfile(t, "Dockerfile")
	if len(stages) < 2 {
		t.Fatalf("Dockerfile: %d stage(s), want a build stage and a final one", len(stages))
	}
	built := false
	for _, st := range stages[:len(stages)-1] {
		for _, in := range st {
			if in.Cmd == "RUN" && strings.Contains(in.Args, "goreleaser build") {
				if !strings.Contains(in.Args, releaseBuild+" ") && !strings.HasSuffix(in.Args, releaseBuild) {
					t.Errorf("Dockerfile:%d: the build runs %q, want the release build %q", in.Line, in.Args, releaseBuild)
				}
				built = true
			}
		}
	}
	if !built {
		t.Errorf("Dockerfile: no build stage runs %q", releaseBuild)
	}
	final := stages[len(stages)-1]
	from := strings.Fields(final[0].Args)
	base := from[len(from)-1]
	if from[0] != "scratch" && !strings.HasPrefix(from[0], "gcr.io/distroless/static") {
		t.Errorf("Dockerfile:%d: the final stage is FROM %s, want scratch or distroless static", final[0].Line, base)
	}
	var user, entry string
	certs := false
	for _, in := range final[1:] {
		switch in.Cmd {
		case "RUN", "SHELL":
			t.Errorf("Dockerfile:%d: %s in the final stage: it has no shell", in.Line, in.Cmd)
		case "USER":
			user = in.Args
		case "ENTRYPOINT":
			entry = in.Args
		case "CMD":
			var v []string
			if json.Unmarshal([]byte(in.Args), &v) != nil {
				t.Errorf("Dockerfile:%d: CMD %s is not the exec form (a JSON array): the image has no shell", in.Line, in.Args)
			}
		case "COPY":
			if strings.Contains(in.Args, "ca-certificates.crt") && strings.Contains(in.Args, "/etc/ssl/certs/") {
				certs = true
			}
		}
	}
	if u, _, _ := strings.Cut(user, ":"); u == "" || u == "0" || u == "root" {
		t.Errorf("Dockerfile: final stage USER %q, want a non-root user", user)
	}
	var ep []string
	if err := json.Unmarshal([]byte(entry), &ep); err != nil || len(ep) != 1 || ep[0] != "/assay" {
		t.Errorf(`Dockerfile: ENTRYPOINT %s, want ["/assay"] (exec form)`, entry)
	}
	if !certs {
		t.Errorf("Dockerfile: the final stage copies no CA certificates to /etc/ssl/certs/")
	}
}

// TestReadDockerfileFails makes sure the Dockerfile checks can fail: a
// final stage with a shell and a root user is read as such.
func TestReadDockerfileFails(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "Dockerfile")
	if err := os.WriteFile(path, []byte("FROM golang AS build\nRUN go build \\\n  -o /a .\n# c\nFROM alpine\nRUN apk add x\nUSER root\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	st := readDockerfile(t, path)
	if len(st) != 2 || st[0][1].Args != "go build -o /a ." || st[1][0].Args != "alpine" || st[1][1].Cmd != "RUN" || st[1][2].Args != "root" {
		t.Fatalf("readDockerfile = %+v", st)
	}
}

// TestGoreleaser runs `goreleaser check` and the release build of this
// machine's binary on a fresh copy of the repository's files (a git
// repository of one commit, as a clone is), and checks that the binary is
// static (no ELF interpreter, no shared library) and prints the version the
// build gave it. It needs goreleaser on PATH (.ci/run installs it); without
// it the test is skipped, and under CI it fails.
func TestGoreleaser(t *testing.T) {
	bin, err := exec.LookPath("goreleaser")
	if err != nil {
		if shareddata.Required() {
			t.Fatal("goreleaser not on PATH: CI must install it (.ci/run does)")
		}
		t.Skip("goreleaser not on PATH (GOBIN=... go install github.com/goreleaser/goreleaser/v2@v2.17.0)")
	}
	if testing.Short() {
		t.Skip("builds assay: not in -short")
	}
	dir := t.TempDir()
	files, err := exec.Command("git", "ls-files", "-z").Output()
	if err != nil {
		t.Skipf("not a git checkout (git ls-files: %v)", err)
	}
	for _, f := range strings.Split(strings.TrimRight(string(files), "\x00"), "\x00") {
		b, err := os.ReadFile(f)
		if os.IsNotExist(err) {
			continue // deleted in the work tree
		}
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run := func(name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOFLAGS=", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	run("git", "init", "-q")
	run("git", "add", "-A")
	run("git", "commit", "-qm", "release test")
	run(bin, "check")
	run(bin, strings.Fields(releaseBuild)[1:]...)

	matches, err := filepath.Glob(filepath.Join(dir, "dist", "assay_"+runtime.GOOS+"_"+runtime.GOARCH+"*", "assay"+exeSuffix()))
	if err != nil || len(matches) != 1 {
		t.Fatalf("the build's binary in dist/: %v %v", matches, err)
	}
	out, err := exec.Command(matches[0], "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	if !regexpSnapshot(string(out)) {
		t.Errorf("assay version of the release build:\n%s\nwant the snapshot version the build set", out)
	}
	if runtime.GOOS != "linux" {
		return
	}
	f, err := elf.Open(matches[0])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Errorf("%s has an ELF interpreter: not a static binary", matches[0])
		}
	}
	if libs, _ := f.ImportedLibraries(); len(libs) > 0 {
		t.Errorf("%s needs shared libraries %v: not a static binary", matches[0], libs)
	}
}

func exeSuffix() string {
	if runtime.GOOS == "windows" {
		return ".exe"
	}
	return ""
}

// regexpSnapshot reports whether `assay version` printed the snapshot
// version of .goreleaser.yaml (X.Y.Z-snapshot+COMMIT), not the module's.
func regexpSnapshot(out string) bool {
	first, _, _ := strings.Cut(out, "\n")
	v, ok := strings.CutPrefix(first, "assay version ")
	return ok && strings.Contains(v, "-snapshot+") && !strings.Contains(v, " ")
}
