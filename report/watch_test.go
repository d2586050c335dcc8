package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/assay-eval/assay/compare"
)

// The short comparison of a watch re-run: the measures that moved and
// the flips, nothing else (no CI table, no latency, no verdict).
func TestWatchChangesGolden(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := WatchChanges(&b, compareFixture()); err != nil {
		t.Fatal(err)
	}
	golden(t, "TestWatchChanges.golden.txt", b.Bytes())
}

// Nothing moved: one line that says so.
func TestWatchChangesNoChange(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	rep := compare.Report{Baseline: "0193a1b2-7c3d-7e4f-8a5b-111111111111", PairedCases: 3,
		Metrics: []compare.MetricDelta{{Name: "ndcg@10", Baseline: 0.5, Candidate: 0.5}}}
	if err := WatchChanges(&b, rep); err != nil {
		t.Fatal(err)
	}
	if got, want := b.String(), "no change since the previous run 0193a1b2-7c3d (3 paired cases)\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// The changed files are named, three at most, control bytes escaped.
func TestWatchRerunLine(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := WatchRerun(&b, []string{"a\x1b[2J.md", "b.md", "c.md", "d.md", "e.md"}); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	if !strings.Contains(got, "watch: a\\x1b[2J.md, b.md, c.md and 2 more changed: running again\n") {
		t.Errorf("got %q", got)
	}
}
