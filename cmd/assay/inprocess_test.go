package main

// The testscripts run about 1,100 assay commands. Started as a process
// each, most of their CPU went to starting and ending processes and to
// package initialization (the JSON Schema library compiles its
// metaschemas in its init), not to the commands. So TestScripts runs the
// `exec assay ...` lines of a script in a worker: the test binary started
// once more as a long-lived process that runs one command at a time
// through run, the CLI's own entry, with the command's working directory
// and environment set as the script's. A worker is a process of its own,
// so the commands of scripts running in parallel never share a working
// directory or an environment, and the test process's own state is never
// changed. Workers are started when every started one is busy, and end
// when the tests end (stopWorkers, waited for, so that their CPU time is
// the test process's).
//
// Which lines run in a worker is decided by reading the script
// (inProcessScript): an `exec assay` line or an `exitcode N assay` line,
// rewritten as `assay-worker` (testscript.Main makes `assay` itself a
// command that execs the program, and no script command can override it),
// unless a real process is what the line tests or needs, so these stay
// `exec`:
//   - a line run in the background (`&`): it is signalled, killed or
//     waited for;
//   - a line after `stdin`, until an unconditional exec consumes it (a
//     script's stdin is not visible to a script command);
//   - every line of a script that sets an environment variable starting
//     with GO (GOMEMLIMIT, GOGC, GODEBUG, GOMAXPROCS...): the Go runtime
//     reads them when a process starts.
// The stand-in services that run a command of their own (`exec knowlex
// ... -- assay ...`, `exec llmtest ... -- assay ...`, their `exitcode N`
// forms, and the same run as script commands without exec) are rewritten
// as `shim-exec NAME ...`: the stand-in runs in a worker, with the shim
// first on its PATH, so the `assay` it starts runs in another worker
// (cmdShimExec). The stand-ins started in the background (judgestub,
// usagestub, convstub) start as the shim's assay-stub, served on a
// goroutine of the test process (serveShim).
// The `within` command always starts a process, since it measures one.
// The `assay` of the CI examples' shell steps (ghstep, glstep, kubejob)
// is a small shim that hands its command to a worker (startShim), and a
// Go test may run commands in a worker of its own, measured as a process
// is (worker.runMeasured).
// ASSAY_TEST_EXEC=1 in the environment of go test, or -update, runs every
// line as written, and the steps' assay as the test binary.

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/assay-eval/assay/examples/http-knowlex/kb"
	"github.com/assay-eval/assay/internal/filelock"
	"github.com/assay-eval/assay/llm/llmtest"
	"github.com/rogpeppe/go-internal/testscript"
)

// workerEnvVar, set to 1, makes the test binary a worker (TestMain).
const workerEnvVar = "ASSAY_TEST_WORKER"

// execEnvVar, set to 1, runs every `exec assay` line as a process.
const execEnvVar = "ASSAY_TEST_EXEC"

// workRequest is one command for a worker; workReply is how it went.
type workRequest struct {
	// Program is the program the command runs: "" is assay, the others
	// are the stand-ins of workerPrograms.
	Program string
	Args    []string
	Env     []string // NAME=VALUE, the whole environment of the command
	Dir     string   // its working directory
}

type workReply struct {
	Code           int
	Stdout, Stderr []byte
}

// workerPrograms are the stand-in services a worker runs besides assay
// (workRequest.Program): the ones that serve while a command of their
// own runs (`knowlex ... -- CMD`, `llmtest ... -- CMD`) and hold no state
// of the process but its working directory and environment, which the
// worker sets for each request. The command they start inherits both.
var workerPrograms = map[string]func(args []string, stdout, stderr io.Writer) int{
	"knowlex": func(args []string, stdout, stderr io.Writer) int {
		return kb.Main(args, stdout, stderr, os.Getenv, os.Environ())
	},
	"llmtest": func(args []string, stdout, stderr io.Writer) int {
		return llmtest.Main(args, stdout, stderr, os.Environ())
	},
}

// serveWorker is a worker's main: it reads requests from fd 3 and writes
// replies to fd 4 until fd 3 closes. The command's own output goes to
// the reply; the worker's stdout and stderr are only for what escapes a
// command (a panic's trace), which its parent reports.
//
// With ASSAY_TEST_WORKER_PROFILE=DIR in the environment of go test, each
// worker writes a CPU profile of its commands to DIR/worker-PID.pprof.
func serveWorker() int {
	if dir := os.Getenv("ASSAY_TEST_WORKER_PROFILE"); dir != "" {
		f, err := os.Create(filepath.Join(dir, fmt.Sprintf("worker-%d.pprof", os.Getpid())))
		if err == nil && pprof.StartCPUProfile(f) == nil {
			defer func() {
				pprof.StopCPUProfile()
				f.Close()
			}()
		}
	}
	// The worker is the assay process of the commands it runs: named so,
	// a target script that looks for its assay process (by the name in
	// /proc/PID/comm, Linux) finds the worker, not an ancestor of it. A
	// thread may rename the group's main thread; elsewhere this fails and
	// nothing looks.
	os.WriteFile(fmt.Sprintf("/proc/self/task/%d/comm", os.Getpid()), []byte("assay"), 0)
	// The stand-ins a worker runs start programs of their own, which must
	// not inherit the worker's ends of its pipes.
	syscall.CloseOnExec(3)
	syscall.CloseOnExec(4)
	req, rep := os.NewFile(3, "requests"), os.NewFile(4, "replies")
	dec, enc := gob.NewDecoder(bufio.NewReader(req)), gob.NewEncoder(rep)
	for {
		var rq workRequest
		if err := dec.Decode(&rq); err != nil {
			return 0 // the parent is gone or done
		}
		if err := os.Chdir(rq.Dir); err != nil {
			fmt.Fprintf(os.Stderr, "worker: %v\n", err)
			return 2
		}
		os.Clearenv()
		for _, kv := range rq.Env {
			if k, v, ok := strings.Cut(kv, "="); ok && k != "" {
				os.Setenv(k, v)
			}
		}
		var stdout, stderr bytes.Buffer
		var code int
		if prog, ok := workerPrograms[rq.Program]; ok {
			code = prog(rq.Args, &stdout, &stderr)
		} else if rq.Program != "" {
			fmt.Fprintf(&stderr, "worker: no program %q\n", rq.Program)
			code = 2
		} else {
			code = run(context.Background(), rq.Args, &Env{
				Stdin:  strings.NewReader(""),
				Stdout: &stdout,
				Stderr: &stderr,
				Getenv: os.Getenv,
			})
		}
		if err := enc.Encode(workReply{Code: code, Stdout: stdout.Bytes(), Stderr: stderr.Bytes()}); err != nil {
			return 0
		}
	}
}

// worker is the parent's end of one worker process.
type worker struct {
	cmd    *exec.Cmd
	req    io.WriteCloser
	enc    *gob.Encoder
	dec    *gob.Decoder
	output *syncBuffer // the worker's own stdout and stderr (serve_test.go)
}

// workers holds the idle workers.
var workers struct {
	mu   sync.Mutex
	idle []*worker
}

func startWorker() (*worker, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	reqR, reqW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	repR, repW, err := os.Pipe()
	if err != nil {
		reqR.Close()
		reqW.Close()
		return nil, err
	}
	w := &worker{output: new(syncBuffer)}
	w.cmd = exec.Command(exe)
	w.cmd.Env = append(os.Environ(), workerEnvVar+"=1")
	w.cmd.ExtraFiles = []*os.File{reqR, repW}
	w.cmd.Stdout, w.cmd.Stderr = w.output, w.output
	err = w.cmd.Start()
	reqR.Close()
	repW.Close()
	if err != nil {
		reqW.Close()
		repR.Close()
		return nil, err
	}
	w.req = reqW
	w.enc, w.dec = gob.NewEncoder(reqW), gob.NewDecoder(bufio.NewReader(repR))
	return w, nil
}

// runInWorker runs one command in an idle worker (a new one when none is
// idle). A worker that dies in a command (a panic) is not reused; the
// command then exits 2 with what the worker printed, as a process that
// panics does.
func runInWorker(rq workRequest) (workReply, error) {
	workers.mu.Lock()
	var w *worker
	if n := len(workers.idle); n > 0 {
		w, workers.idle = workers.idle[n-1], workers.idle[:n-1]
	}
	workers.mu.Unlock()
	if w == nil {
		var err error
		if w, err = startWorker(); err != nil {
			return workReply{}, fmt.Errorf("starting a worker: %v", err)
		}
	}
	var rep workReply
	err := w.enc.Encode(rq)
	if err == nil {
		err = w.dec.Decode(&rep)
	}
	if err != nil {
		w.req.Close()
		w.cmd.Wait()
		return workReply{Code: 2, Stderr: []byte(w.output.String())}, nil
	}
	workers.mu.Lock()
	workers.idle = append(workers.idle, w)
	workers.mu.Unlock()
	return rep, nil
}

// stopWorkers ends the idle workers and waits for them, so that their
// CPU time counts in the test process's (rusage of its children).
func stopWorkers() {
	workers.mu.Lock()
	defer workers.mu.Unlock()
	for _, w := range workers.idle {
		w.req.Close()
		w.cmd.Wait()
	}
	workers.idle = nil
}

// trimWorkers ends idle workers past the first n (a test that ran many
// commands at once leaves as many workers idle).
func trimWorkers(n int) {
	workers.mu.Lock()
	var extra []*worker
	if len(workers.idle) > n {
		extra = slices.Clone(workers.idle[n:])
		workers.idle = workers.idle[:n]
	}
	workers.mu.Unlock()
	for _, w := range extra {
		w.req.Close()
		w.cmd.Wait()
	}
}

// withWorkers is the tests' testing.M, stopping the workers when the
// tests end (testscript.Main exits with what Run returns).
type withWorkers struct{ m *testing.M }

func (w withWorkers) Run() int {
	code := w.m.Run()
	stopWorkers()
	return code
}

// envNamesKey is the testscript.Env value holding the names of a
// script's initial environment (set in Setup).
type envNamesKey struct{}

// scriptEnvNames holds, per script, the names its `env` lines set (read
// by inProcessScript), for the environment of a worker's command.
var scriptEnvNames sync.Map // script name -> []string

// workerRequest is the request of the command args as the script ts
// would exec it: in its current directory, with its environment.
func workerRequest(ts *testscript.TestScript, args []string) workRequest {
	names, _ := ts.Value(envNamesKey{}).([]string)
	if more, ok := scriptEnvNames.Load(ts.Name()); ok {
		names = append(slices.Clip(names), more.([]string)...)
	}
	dir := ts.MkAbs(".")
	env := []string{"PWD=" + dir}
	seen := map[string]bool{"PWD": true}
	for _, n := range names {
		if seen[n] {
			continue
		}
		seen[n] = true
		if v := ts.Getenv(n); v != "" {
			env = append(env, n+"="+v)
		}
	}
	return workRequest{Args: args, Env: env, Dir: dir}
}

// runAssay runs `assay ARGS...` in a worker for the script ts and returns
// its exit status, its stdout and stderr left for the script's stdout and
// stderr checks.
func runAssay(ts *testscript.TestScript, args []string) int {
	rep, err := runInWorker(workerRequest(ts, args))
	if err != nil {
		ts.Fatalf("assay: %v", err)
	}
	ts.Stdout().Write(rep.Stdout)
	ts.Stderr().Write(rep.Stderr)
	return rep.Code
}

// cmdAssay is the script command `[!] assay-worker ARGS...`: `exec assay
// ARGS...` run in a worker.
func cmdAssay(ts *testscript.TestScript, neg bool, args []string) {
	wantExit(ts, neg, runAssay(ts, args))
}

// wantExit logs a failing exit status as exec does, and fails the script
// when the status is not what the command's `!` (neg) asks for.
func wantExit(ts *testscript.TestScript, neg bool, code int) {
	if code != 0 {
		ts.Logf("[exit status %d]", code)
	}
	switch {
	case code == 0 && neg:
		ts.Fatalf("unexpected command success")
	case code != 0 && !neg:
		ts.Fatalf("unexpected command failure")
	}
}

var (
	// scriptLine is a line of a script: conditions, "!", a command.
	scriptLine = regexp.MustCompile(`^(\s*(?:\[[^\]]*\]\s*)*)(!\s+)?(\S+)(.*)$`)
	// exitcodeAssay is the rest of an `exitcode N assay ...` line.
	exitcodeAssay = regexp.MustCompile(`^(\s+)(\d+)(\s+)assay(\s.*)?$`)
	// wrapsAssay are the scripts' programs that start the command after
	// their "--" (assay, in the scripts) as a child of their own.
	wrapsAssay = map[string]bool{"knowlex": true, "llmtest": true}
	// envGo is a variable of the Go runtime set by an env line.
	envGo = regexp.MustCompile(`(^|\s)GO[A-Z]+=`)
	// envName is a NAME=VALUE argument of an env line.
	envName = regexp.MustCompile(`(?:^|\s)['"]?([A-Za-z_][A-Za-z0-9_]*)=`)
)

// inProcessScript is the text of a script (a txtar archive) with the lines
// that run in a worker rewritten: `exec assay` as the command
// `assay-worker`, `exitcode N assay` as `exitcode N assay-worker`, and
// `exec knowlex` or `exec llmtest` (wrapsAssay), or either run as a script
// command (`llmtest ARGS...`), as `shim-exec` of it (in an exitcode line
// too). It also returns the
// names the script's env lines set. A script that sets a GO* variable is
// returned as it is. With withStubs, a stand-in of stubs started in the
// background (`exec judgestub ADDR LOG &stub&`) is started as the shim's
// assay-stub (`exec $ASSAY_TEST_STUB judgestub ADDR LOG &stub&`): a small
// process, signalled and waited for as the stand-in's own would be, that
// has the test process serve the stand-in on a goroutine.
func inProcessScript(data []byte, withStubs bool) (out []byte, envNames []string) {
	text := string(data)
	script, files := text, ""
	if i := strings.Index(text, "\n-- "); i >= 0 {
		script, files = text[:i+1], text[i+1:]
	} else if strings.HasPrefix(text, "-- ") {
		script, files = "", text
	}
	lines := strings.Split(script, "\n")
	pendingStdin := false
	rewritten := make([]string, len(lines))
	for i, line := range lines {
		rewritten[i] = line
		m := scriptLine.FindStringSubmatch(line)
		if m == nil || strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		conds, bang, cmd, rest := m[1], m[2], m[3], m[4]
		conditional := strings.TrimSpace(conds) != ""
		fields := strings.Fields(rest)
		background := len(fields) > 0 && strings.HasPrefix(fields[len(fields)-1], "&") && strings.HasSuffix(fields[len(fields)-1], "&")
		switch cmd {
		case "env":
			if envGo.MatchString(rest) {
				return data, nil
			}
			for _, n := range envName.FindAllStringSubmatch(rest, -1) {
				envNames = append(envNames, n[1])
			}
		case "stdin":
			pendingStdin = true
		case "exec":
			if !pendingStdin && !background && len(fields) > 0 && fields[0] == "assay" {
				rewritten[i] = conds + bang + strings.Replace(line[len(conds)+len(bang):], "exec assay", "assay-worker", 1)
			}
			if !pendingStdin && !background && len(fields) > 0 && wrapsAssay[fields[0]] {
				rewritten[i] = conds + bang + strings.Replace(line[len(conds)+len(bang):], "exec ", "shim-exec ", 1)
			}
			if withStubs && !pendingStdin && background && len(fields) > 0 && stubs[fields[0]] != nil {
				rewritten[i] = conds + bang + strings.Replace(line[len(conds)+len(bang):], "exec ", "exec $"+stubVar+" ", 1)
			}
			if !conditional {
				pendingStdin = false
			}
		case "knowlex", "llmtest": // wrapsAssay run as a script command
			if !pendingStdin && !background {
				rewritten[i] = conds + bang + "shim-exec " + line[len(conds)+len(bang):]
			}
			if !conditional {
				pendingStdin = false
			}
		case "exitcode":
			if !pendingStdin {
				if e := exitcodeAssay.FindStringSubmatch(rest); e != nil {
					rewritten[i] = conds + bang + "exitcode" + e[1] + e[2] + e[3] + "assay-worker" + e[4]
				} else if len(fields) > 1 && wrapsAssay[fields[1]] {
					rewritten[i] = conds + bang + "exitcode" + strings.Replace(rest, " "+fields[1], " shim-exec "+fields[1], 1)
				}
			}
			if !conditional {
				pendingStdin = false
			}
		}
	}
	return []byte(strings.Join(rewritten, "\n") + files), envNames
}

// inProcessScripts writes the scripts of dir, rewritten by
// inProcessScript (with withStubs), to a new directory under tmp and
// returns it.
func inProcessScripts(dir, tmp string, withStubs bool) (string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.txtar"))
	if err != nil {
		return "", err
	}
	out := filepath.Join(tmp, "script")
	if err := os.MkdirAll(out, 0o755); err != nil {
		return "", err
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return "", err
		}
		rewritten, names := inProcessScript(data, withStubs)
		scriptEnvNames.Store(strings.TrimSuffix(filepath.Base(f), ".txtar"), names)
		if err := os.WriteFile(filepath.Join(out, filepath.Base(f)), rewritten, 0o644); err != nil {
			return "", err
		}
	}
	return out, nil
}

// runMeasured runs one command in w, a worker the caller started for
// itself (startWorker), and measures it as runMeasured measures a
// process: the command's exit status, how long it took and the worker's
// peak resident set while it ran. The peak is reset before the command
// (/proc/PID/clear_refs, Linux), so it is the worker's resident set at the
// start plus what the command grew it by, as a process's own peak would
// be. A command still running after limit is ended by killing the worker
// (the error says so, and w is not usable after it); so is a worker whose
// peak cannot be reset, where the caller must start a process instead.
func (w *worker) runMeasured(rq workRequest, limit time.Duration) (workReply, measured, error) {
	pid := w.cmd.Process.Pid
	if err := os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0); err != nil {
		return workReply{}, measured{}, fmt.Errorf("resetting the worker's peak: %v", err)
	}
	type result struct {
		rep workReply
		err error
	}
	done := make(chan result, 1)
	start := time.Now()
	go func() {
		var rep workReply
		err := w.enc.Encode(rq)
		if err == nil {
			err = w.dec.Decode(&rep)
		}
		done <- result{rep, err}
	}()
	timer := time.NewTimer(limit)
	defer timer.Stop()
	select {
	case r := <-done:
		m := measured{code: r.rep.Code, took: time.Since(start), rssMiB: vmHWMKiB(pid) >> 10}
		if r.err != nil {
			// The worker died in the command (a panic): the command's
			// exit status and output are a crashed process's.
			w.req.Close()
			w.cmd.Wait()
			return workReply{Code: 2, Stderr: []byte(w.output.String())}, measured{code: 2, took: m.took}, nil
		}
		return r.rep, m, nil
	case <-timer.C:
		w.cmd.Process.Kill()
		w.req.Close()
		w.cmd.Wait()
		return workReply{}, measured{code: -1, took: time.Since(start)}, fmt.Errorf("still running after %v: killed", limit)
	}
}

// The CI examples' shell steps (ghstep, glstep, kubejob) run assay as a
// program of their own, found on PATH. With a shim (testdata/workershim,
// built once per run of the test binary) first on the PATH of those
// steps, each such assay is a small process that hands its command to a
// worker through a Unix socket the test process serves, not a start of
// the test binary. shimVar names the socket in a script's environment;
// shimDirVar the directory holding the shim; shimRealVar the test binary
// as assay, which the shim execs for a command that reads stdin.
const (
	shimVar     = "ASSAY_TEST_SHIM_SOCKET"
	shimDirVar  = "ASSAY_TEST_SHIM_DIR"
	shimRealVar = "ASSAY_TEST_SHIM_REAL"
	// stubVar names the shim as assay-stub, which scripts start in the
	// background in place of a stand-in service's process (inProcessScript).
	stubVar = "ASSAY_TEST_STUB"
)

// startShim installs the shim (installShim), links it as assay and
// assay-stub in a directory of t's, and serves its socket
// until t ends. It returns the variables of the scripts' environment that
// put it to use (nil, logged, when it cannot be built: the steps then run
// the test binary).
func startShim(t *testing.T) []string {
	real, err := exec.LookPath("assay") // testscript.Main's copy of the test binary
	if err != nil {
		t.Logf("no shim for the CI steps: %v", err)
		return nil
	}
	shim, err := installShim()
	if err != nil {
		t.Logf("no shim for the CI steps: %v", err)
		return nil
	}
	dir := t.TempDir()
	for _, name := range []string{"assay", "assay-stub"} {
		if err := os.Symlink(shim, filepath.Join(dir, name)); err != nil {
			t.Logf("no shim for the CI steps: %v", err)
			return nil
		}
	}
	sock := filepath.Join(dir, "s")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Logf("no shim for the CI steps: %v", err)
		return nil
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go serveShim(c)
		}
	}()
	return []string{shimVar + "=" + sock, shimDirVar + "=" + dir, shimRealVar + "=" + real, stubVar + "=" + filepath.Join(dir, "assay-stub")}
}

// installShim installs the shim (go install) into a directory of the
// user's cache named after this checkout, kept between runs, and returns
// its path: the go command links it again only when its code changed,
// where a go build would link it on every run. Without a user cache it
// builds it into a temporary directory.
func installShim() (string, error) {
	dir, err := os.UserCacheDir()
	if err == nil {
		var wd string
		if wd, err = os.Getwd(); err == nil {
			sum := sha256.Sum256([]byte(wd))
			dir = filepath.Join(dir, "assay-test", "workershim-"+hex.EncodeToString(sum[:8]))
			err = os.MkdirAll(dir, 0o755)
		}
	}
	if err != nil {
		if dir, err = os.MkdirTemp("", "assay-workershim-"); err != nil {
			return "", err
		}
	}
	lock, err := filelock.Acquire(context.Background(), dir, 5*time.Minute)
	if err != nil {
		return "", err
	}
	defer lock.Release()
	install := exec.Command("go", "install", "./testdata/workershim")
	install.Env = append(os.Environ(), "GOBIN="+dir)
	if out, err := install.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go install: %v\n%s", err, out)
	}
	return filepath.Join(dir, "workershim"), nil
}

// serveShim runs the one command a shim sends in a worker and sends back
// how it went. A stand-in of stubs (the shim run as assay-stub) is served
// on a goroutine of the test process until the shim closes its end of the
// connection for writing (it was signalled) or goes.
func serveShim(c net.Conn) {
	defer c.Close()
	var rq workRequest
	dec := gob.NewDecoder(c)
	if err := dec.Decode(&rq); err != nil {
		return
	}
	if _, ok := stubs[rq.Program]; ok {
		ctx, cancel := context.WithCancel(context.Background())
		go func() {
			var more workRequest
			dec.Decode(&more) // returns when the shim closes its end
			cancel()
		}()
		var stderr bytes.Buffer
		code := serveStub(ctx, rq.Program, rq.Dir, &stderr, rq.Args)
		cancel()
		gob.NewEncoder(c).Encode(workReply{Code: code, Stderr: stderr.Bytes()})
		return
	}
	rep, err := runInWorker(rq)
	if err != nil {
		rep = workReply{Code: 2, Stderr: []byte(err.Error() + "\n")}
	}
	gob.NewEncoder(c).Encode(rep)
}

// withShim puts the shim first on the PATH of a step the script ts runs
// next, through set (the step's own variable setter, which restores what
// it set when the step ends). Without a shim it does nothing.
func withShim(ts *testscript.TestScript, set func(k, v string)) {
	if dir := ts.Getenv(shimDirVar); dir != "" {
		set("PATH", dir+string(filepath.ListSeparator)+ts.Getenv("PATH"))
	}
}

// cmdShimExec is the script command `[!] shim-exec PROGRAM ARGS...`:
// `exec PROGRAM ARGS...` with the shim first on its PATH, so that the
// assay PROGRAM starts runs in a worker. PROGRAM (knowlex or llmtest,
// workerPrograms) runs in a worker too, in the script's directory and
// environment, its output the script's stdout and stderr. Without a shim
// it is exec.
func cmdShimExec(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 1 {
		ts.Fatalf("usage: shim-exec PROGRAM [ARGS...]")
	}
	wantExit(ts, neg, shimExec(ts, args))
}

// shimExec runs args with the shim first on its PATH (in a worker when
// there is a shim, else as a process through ts.Exec), puts the script's
// PATH back after, and returns the exit status.
func shimExec(ts *testscript.TestScript, args []string) int {
	path := ts.Getenv("PATH")
	withShim(ts, ts.Setenv)
	defer ts.Setenv("PATH", path)
	if _, ok := workerPrograms[args[0]]; ok && ts.Getenv(shimDirVar) != "" {
		rq := workerRequest(ts, args[1:])
		rq.Program = args[0]
		rep, err := runInWorker(rq)
		if err != nil {
			ts.Fatalf("%s: %v", args[0], err)
		}
		ts.Stdout().Write(rep.Stdout)
		ts.Stderr().Write(rep.Stderr)
		return rep.Code
	}
	err := ts.Exec(args[0], args[1:]...)
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	} else if err != nil {
		ts.Fatalf("%s: %v", args[0], err)
	}
	return 0
}
