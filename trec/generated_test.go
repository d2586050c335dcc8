package trec

import (
	"bytes"
	"strings"
	"testing"

	"github.com/assay-eval/assay/internal/trecgen"
)

func generated(tb testing.TB, queries, depth int, shuffle bool) map[string]string {
	tb.Helper()
	p := trecgen.Defaults()
	p.Queries, p.Depth, p.Shuffle, p.UnjudgedFrac = queries, depth, shuffle, 0.05
	var q, r bytes.Buffer
	if err := trecgen.Write(&q, &r, p); err != nil {
		tb.Fatal(err)
	}
	return map[string]string{"q": q.String(), "r": r.String(), "<stdin>": r.String()}
}

// Interleaved run lines (the evaluator's re-read path), stdin (the
// keep-everything path) and grouped lines give the same output, with every
// option that changes the ranking.
func TestGeneratedPathsAgree(t *testing.T) {
	grouped := generated(t, 60, 200, false)
	shuffled := generated(t, 60, 200, true)
	defer func(b int64) { passBytes = b }(passBytes)
	passBytes = 100 << 10 // several passes over the interleaved run
	for _, args := range []string{"-q -m all_trec", "-q -c -m all_trec", "-q -c -J -m all_trec", "-q -l2 -M50 -m all_trec"} {
		c1, want, e1 := run(t, grouped, args+" q r")
		c2, got, e2 := run(t, shuffled, args+" q r")
		c3, got3, _ := run(t, shuffled, args+" q -")
		if c1 != 0 || c2 != 0 || c3 != 0 {
			t.Fatalf("%s: exits %d %d %d: %s %s", args, c1, c2, c3, e1, e2)
		}
		if got != want || got3 != want {
			t.Errorf("%s: paths differ:\n%s", args, lineDiff(want, got))
		}
		if strings.Count(want, "\n") < 45*96 {
			t.Errorf("%s: only %d lines", args, strings.Count(want, "\n"))
		}
	}
}
