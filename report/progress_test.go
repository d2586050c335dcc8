package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/assay-eval/assay"
)

// TestProgressLines drives the plain progress of a CI log with a clock the
// test moves: nothing in the quiet start, then a line per tenth of the
// run, and a line after 30 s without one even when no case ended.
func TestProgressLines(t *testing.T) {
	t.Parallel()
	clock := time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)
	now := func() time.Time { return clock }
	var buf bytes.Buffer
	p := NewProgressLines(&buf, 20, now)
	pass, fail := assay.CaseResult{Pass: ptr(true)}, assay.CaseResult{Pass: ptr(false)}
	errored := assay.CaseResult{Pass: ptr(false), Error: &assay.Error{Class: assay.ErrTimeout}}

	// 0..5 s: 4 trials (20%), no line yet.
	for i := 0; i < 4; i++ {
		clock = clock.Add(time.Second)
		p.Observe(pass)
	}
	if buf.Len() != 0 {
		t.Fatalf("a line in the quiet start: %q", buf.String())
	}
	// 12 s: the next trial is due (past the quiet start, a new tenth).
	clock = clock.Add(8 * time.Second)
	p.Observe(fail)
	// The next trial reaches 30%: a line.
	clock = clock.Add(time.Second)
	p.Observe(errored)
	// 40 s later nothing ended: Tick writes a keep-alive line; a Tick 5 s
	// later writes none.
	clock = clock.Add(40 * time.Second)
	p.Tick()
	clock = clock.Add(5 * time.Second)
	p.Tick()
	// The rest of the run: one line per tenth, ending at 100%.
	for i := 0; i < 14; i++ {
		clock = clock.Add(time.Second)
		p.Observe(pass)
	}
	got := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	want := []string{
		"assay: progress 5/20 cases (25%)  passed 4  failed 1  errors 0  elapsed 12s",
		"assay: progress 6/20 cases (30%)  passed 4  failed 2  errors 1  elapsed 13s",
		"assay: progress 6/20 cases (30%)  passed 4  failed 2  errors 1  elapsed 53s",
		"assay: progress 8/20 cases (40%)  passed 6  failed 2  errors 1  elapsed 1m0s",
		"assay: progress 10/20 cases (50%)  passed 8  failed 2  errors 1  elapsed 1m2s",
		"assay: progress 12/20 cases (60%)  passed 10  failed 2  errors 1  elapsed 1m4s",
		"assay: progress 14/20 cases (70%)  passed 12  failed 2  errors 1  elapsed 1m6s",
		"assay: progress 16/20 cases (80%)  passed 14  failed 2  errors 1  elapsed 1m8s",
		"assay: progress 18/20 cases (90%)  passed 16  failed 2  errors 1  elapsed 1m10s",
		"assay: progress 20/20 cases (100%)  passed 18  failed 2  errors 1  elapsed 1m12s",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
