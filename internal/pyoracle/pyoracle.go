// Package pyoracle runs an independent statistical implementation (SciPy
// and statsmodels under Debian's /usr/bin/python3) from tests, so that the
// statistics of packages compare and gate are checked against code that
// is not ours.
//
// One interpreter serves every check of a test binary: it is started at the
// first Require or Run, imports scipy and statsmodels once, and runs each
// script in a fresh global namespace with its own standard input and output.
// Importing SciPy and statsmodels costs about a second of CPU, more than most
// checks; a package with several oracle checks paid it once per check when
// each ran its own python3. Modules a script imports stay imported for the
// next one (as sys.path and other interpreter state a script changes do);
// scripts that must not see each other's state set what they rely on.
// An explicit gc.collect does nothing in this interpreter (the collector
// still runs on its own): statsmodels' multipletests calls it on every
// call, and each full collection walked every object of the loaded SciPy
// and statsmodels, 30 to 60 ms a call; nothing a script computes depends
// on when garbage is collected.
// Checks run one at a time. A package whose tests use the oracle calls Main
// from its TestMain: it stops the interpreter and waits for it once the
// tests are done, so that the interpreter's CPU is counted as the test
// binary's (by /usr/bin/time or go test's rusage), as it was when each check
// ran a python3 of its own and waited for it.
//
// When /usr/bin/python3 or its scipy/statsmodels modules are missing the
// test is skipped on a developer's machine, with the reason, and fails under
// CI (shareddata.Required), where .ci/run installs python3-scipy and
// python3-statsmodels.
package pyoracle

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"testing"

	"github.com/assay-eval/assay/internal/shareddata"
)

// Python is the interpreter that Debian's python3-scipy and
// python3-statsmodels install into (another python3 on PATH, such as a
// pyenv build, does not see them).
const Python = "/usr/bin/python3"

// server reads one request a line ({"script", "input"}), runs the script
// with input as its standard input and answers one line: what the script
// printed, or the traceback that stopped it.
const server = `
import gc, io, json, sys, traceback
import scipy, statsmodels
gc.collect = lambda generation=2: 0
requests, replies = sys.stdin, sys.stdout
replies.write("ready\n")
replies.flush()
for line in requests:
    req = json.loads(line)
    out = io.StringIO()
    sys.stdin, sys.stdout = io.StringIO(req["input"]), out
    err = ""
    try:
        exec(compile(req["script"], "<oracle>", "exec"), {"__name__": "__main__"})
    except BaseException:
        err = traceback.format_exc()
    finally:
        sys.stdin, sys.stdout = requests, replies
    replies.write(json.dumps({"out": out.getvalue(), "err": err}) + "\n")
    replies.flush()
`

var (
	startOnce sync.Once
	startErr  error

	mu       sync.Mutex // one check at a time
	proc     *exec.Cmd
	requests io.WriteCloser
	replies  *bufio.Reader
	stderr   bytes.Buffer // the interpreter's own errors, for a crash
)

func start() {
	cmd := exec.Command(Python, "-c", server)
	in, err := cmd.StdinPipe()
	if err != nil {
		startErr = err
		return
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		startErr = err
		return
	}
	cmd.Stderr = &lockedWriter{w: &stderr}
	if err := cmd.Start(); err != nil {
		startErr = &missingError{"", err}
		return
	}
	replies = bufio.NewReader(out)
	requests = in
	proc = cmd
	line, err := replies.ReadString('\n')
	if line != "ready\n" {
		if err == nil {
			err = fmt.Errorf("unexpected first line %q", line)
		}
		err = errors.Join(err, cmd.Wait())
		startErr = &missingError{string(bytes.TrimSpace(stderrBytes())), err}
		return
	}
}

// Main runs the tests of m, then stops the interpreter if they started it
// and waits for it, and exits with the tests' status. Call it from the
// TestMain of a package whose tests use the oracle:
//
//	func TestMain(m *testing.M) { pyoracle.Main(m) }
func Main(m *testing.M) {
	code := m.Run()
	if err := stop(); err != nil {
		fmt.Fprintf(os.Stderr, "pyoracle: the interpreter did not stop cleanly: %v\n%s", err, stderrBytes())
		if code == 0 {
			code = 1
		}
	}
	os.Exit(code)
}

// stop closes the interpreter's standard input, so that it leaves its
// loop, and waits for it.
func stop() error {
	mu.Lock()
	defer mu.Unlock()
	if proc == nil {
		return nil
	}
	requests.Close()
	err := proc.Wait()
	proc = nil
	return err
}

// Require skips (or, under CI, fails) tb when the oracle is not installed.
func Require(tb testing.TB) {
	tb.Helper()
	startOnce.Do(start)
	if startErr == nil {
		return
	}
	if shareddata.Required() {
		tb.Fatalf("statistical oracle missing (apt-get install -y python3-scipy python3-statsmodels): %v", startErr)
	}
	tb.Skipf("statistical oracle missing (apt-get install -y python3-scipy python3-statsmodels): %v", startErr)
}

type missingError struct {
	out string
	err error
}

func (e *missingError) Error() string { return e.err.Error() + ": " + e.out }

// Run runs script under the oracle with in encoded as JSON on its standard
// input and decodes the JSON it prints into out. The script reads its
// input with json.load(sys.stdin) and prints one JSON document.
func Run(tb testing.TB, script string, in, out any) {
	tb.Helper()
	Require(tb)
	data, err := json.Marshal(in)
	if err != nil {
		tb.Fatal(err)
	}
	req, err := json.Marshal(struct {
		Script string `json:"script"`
		Input  string `json:"input"`
	}{script, string(data)})
	if err != nil {
		tb.Fatal(err)
	}
	var reply struct {
		Out string `json:"out"`
		Err string `json:"err"`
	}
	if err := exchange(append(req, '\n'), &reply); err != nil {
		tb.Fatalf("oracle: %v\n%s", err, stderrBytes())
	}
	if reply.Err != "" {
		tb.Fatalf("oracle: the script failed\n%s", reply.Err)
	}
	if err := json.Unmarshal([]byte(reply.Out), out); err != nil {
		tb.Fatalf("oracle output: %v\n%s", err, reply.Out)
	}
}

func exchange(req []byte, reply any) error {
	mu.Lock()
	defer mu.Unlock()
	if proc == nil {
		return errors.New("the interpreter was stopped (pyoracle.Main has returned)")
	}
	if _, err := requests.Write(req); err != nil {
		return err
	}
	line, err := replies.ReadBytes('\n')
	if err != nil {
		return fmt.Errorf("the interpreter stopped: %w", err)
	}
	return json.Unmarshal(line, reply)
}

var stderrMu sync.Mutex

func stderrBytes() []byte {
	stderrMu.Lock()
	defer stderrMu.Unlock()
	return bytes.Clone(stderr.Bytes())
}

// lockedWriter guards the interpreter's standard error, which exec copies
// from a goroutine of its own.
type lockedWriter struct{ w io.Writer }

func (l *lockedWriter) Write(p []byte) (int, error) {
	stderrMu.Lock()
	defer stderrMu.Unlock()
	return l.w.Write(p)
}
