// Package pyoracle runs an independent statistical implementation (SciPy
// and statsmodels under Debian's /usr/bin/python3) from tests, so that the
// statistics of packages compare and gate are checked against code that
// is not ours.
//
// When /usr/bin/python3 or its scipy/statsmodels modules are missing the
// test is skipped on a developer's machine, with the reason, and fails under
// CI (shareddata.Required), where .ci/run installs python3-scipy and
// python3-statsmodels.
package pyoracle

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"sync"
	"testing"

	"github.com/assay-eval/assay/internal/shareddata"
)

// Python is the interpreter that Debian's python3-scipy and
// python3-statsmodels install into (another python3 on PATH, such as a
// pyenv build, does not see them).
const Python = "/usr/bin/python3"

var (
	checkOnce sync.Once
	checkErr  error
)

// Require skips (or, under CI, fails) tb when the oracle is not installed.
func Require(tb testing.TB) {
	tb.Helper()
	checkOnce.Do(func() {
		out, err := exec.Command(Python, "-c", "import scipy, statsmodels").CombinedOutput()
		if err != nil {
			checkErr = &missingError{string(bytes.TrimSpace(out)), err}
		}
	})
	if checkErr == nil {
		return
	}
	if shareddata.Required() {
		tb.Fatalf("statistical oracle missing (apt-get install -y python3-scipy python3-statsmodels): %v", checkErr)
	}
	tb.Skipf("statistical oracle missing (apt-get install -y python3-scipy python3-statsmodels): %v", checkErr)
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
	cmd := exec.Command(Python, "-c", script)
	cmd.Stdin = bytes.NewReader(data)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	res, err := cmd.Output()
	if err != nil {
		tb.Fatalf("oracle: %v\n%s", err, stderr.String())
	}
	if err := json.Unmarshal(res, out); err != nil {
		tb.Fatalf("oracle output: %v\n%s", err, res)
	}
}
