package pyoracle

import (
	"fmt"
	"strings"
	"testing"
)

// TestScriptsShareTheInterpreterNotTheirGlobals: two scripts run in one
// interpreter, each with its own input, output and globals.
func TestScriptsShareTheInterpreterNotTheirGlobals(t *testing.T) {
	const first = `import json, sys
x = json.load(sys.stdin)
print(json.dumps({"double": 2 * x, "seen": "x" in globals()}))`
	const second = `import json, sys
x0 = "x" in globals()
print(json.dumps({"echo": json.load(sys.stdin), "seen": x0}))`
	var a struct {
		Double float64 `json:"double"`
		Seen   bool    `json:"seen"`
	}
	Run(t, first, 21, &a)
	if a.Double != 42 || !a.Seen {
		t.Fatalf("first script answered %+v, want double 42 and its own x", a)
	}
	var b struct {
		Echo string `json:"echo"`
		Seen bool   `json:"seen"`
	}
	Run(t, second, "line one\nline two ü", &b)
	if b.Echo != "line one\nline two ü" || b.Seen {
		t.Fatalf("second script answered %+v, want its own input and no x of the first", b)
	}
}

// TestFailingScriptReportsItsTraceback: a script that raises fails the
// test with Python's traceback, and the interpreter serves the next one.
func TestFailingScriptReportsItsTraceback(t *testing.T) {
	ft := &fakeTB{TB: t}
	func() {
		defer func() { recover() }()
		Run(ft, `raise ValueError("no such statistic")`, nil, new(any))
	}()
	if !strings.Contains(ft.msg, "ValueError: no such statistic") {
		t.Fatalf("failure message %q does not carry the traceback", ft.msg)
	}
	var n int
	Run(t, `import json; print(json.dumps(7))`, nil, &n)
	if n != 7 {
		t.Fatalf("after a failed script the oracle answered %d, want 7", n)
	}
}

type fakeTB struct {
	testing.TB
	msg string
}

func (f *fakeTB) Helper() {}

func (f *fakeTB) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	panic("fatal")
}
