package trec

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
)

// ParseQrelsLine accepts and grades a line exactly as ParseQrels does.
func TestParseQrelsLineAgreesWithParseQrels(t *testing.T) {
	t.Parallel()
	for _, line := range []string{
		"q1 0 d1 1", "q1 0 d1 -1", "q1 0 d1 2x", "q1 0 d1 x", "  q1\t0\td1\t3  ",
		"q1 0 d1 1\r", "q1 0 d1", "q1 0 d1 ", "q1 0 d1 1 extra", "", "   ",
		"q1 0 d1 99999999999999999999",
	} {
		whole, werr := ParseQrels([]byte(line+"\n"), "qrels")
		q, skip, lerr := ParseQrelsLine([]byte(line))
		if skip {
			t.Errorf("%q: skipped", line)
			continue
		}
		if (werr != nil) != (lerr != nil) {
			t.Errorf("%q: ParseQrels error %v, ParseQrelsLine error %v", line, werr, lerr)
			continue
		}
		if werr != nil {
			if !errors.Is(lerr, ErrMalformed) {
				t.Errorf("%q: error %v, want ErrMalformed", line, lerr)
			}
			continue
		}
		if got := whole.topics[0].grades[0]; got != q.Rel || whole.topics[0].qid != q.Qid {
			t.Errorf("%q: ParseQrels %s/%d, ParseQrelsLine %s %s/%d", line, whole.topics[0].qid, got, q.Qid, q.Docno, q.Rel)
		}
	}
	if _, skip, err := ParseQrelsLine([]byte("# a comment")); !skip || err != nil {
		t.Errorf("comment: skip %v, err %v", skip, err)
	}
}

func TestParseRunLine(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		line  string
		skip  bool
		bad   bool
		score float64
	}{
		{line: "q1 Q0 d1 1 2.5 tag", score: 2.5},
		{line: "  q1 Q0 d1 1 1.5x tag extra", score: 1.5}, // atof prefix; the rest of the line ignored
		{line: "q1 Q0 d1 1 x tag", score: 0},
		{line: "q1 Q0 d1 1 -inf tag", score: math.Inf(-1)},
		{line: "q1 Q0 d1 1 nan tag", score: math.NaN()},
		{line: "q1 Q0 d1 1 2.5", bad: true},
		{line: "   ", skip: true},
		{line: "  # comment", skip: true},
	} {
		r, skip, err := ParseRunLine([]byte(c.line))
		switch {
		case skip != c.skip:
			t.Errorf("%q: skip %v", c.line, skip)
		case (err != nil) != c.bad:
			t.Errorf("%q: error %v", c.line, err)
		case !c.skip && !c.bad && (r.Qid != "q1" || r.Docno != "d1" || r.Tag != "tag"):
			t.Errorf("%q: got %+v", c.line, r)
		case !c.skip && !c.bad && !(r.Score == c.score || math.IsNaN(r.Score) && math.IsNaN(c.score)):
			t.Errorf("%q: score %v, want %v", c.line, r.Score, c.score)
		}
	}
}

// A NaN score ranks last whatever the order of the lines, and ties go to
// the larger docno.
func TestSortRankingNaNLast(t *testing.T) {
	t.Parallel()
	for _, in := range [][]Ranked{
		{{"a", math.NaN()}, {"b", 1}, {"c", 1}, {"d", 2}},
		{{"c", 1}, {"d", 2}, {"b", 1}, {"a", math.NaN()}},
		{{"b", 1}, {"a", math.NaN()}, {"d", 2}, {"c", 1}},
	} {
		SortRanking(in)
		got := ""
		for _, r := range in {
			got += r.Docno
		}
		if got != "dcba" {
			t.Errorf("order %q, want dcba", got)
		}
	}
}

// The per-line reader and SortRanking rank a run's documents exactly as
// the evaluator's fast reader does: for each document, judged the only
// relevant one, recip_rank is 1 over its place in SortRanking's order; a
// line ParseRunLine refuses makes assay trec refuse the file.
func TestRunLinesRankLikeTheEvaluator(t *testing.T) {
	t.Parallel()
	for _, runText := range []string{
		"1 Q0 a 1 nan t\n1 Q0 b 2 1 t\n1 Q0 c 3 1.5x t\n1 Q0 d 4 1.5 t\n",
		"# comment\n  1 Q0 a 1 -inf t\n\n1 Q0 b 2 x t extra\n1\tQ0\tc 3 0x10 t\n1 Q0 d 9 -0 t\n1 Q0 e 1 +0 t\n",
		"1 Q0 a 1 2 t\n1 Q0 b 2 1\n",
	} {
		var ranking []Ranked
		malformed := false
		for _, l := range strings.Split(strings.TrimSuffix(runText, "\n"), "\n") {
			r, skip, err := ParseRunLine([]byte(l))
			if err != nil {
				malformed = true
			}
			if !skip && err == nil {
				ranking = append(ranking, Ranked{r.Docno, r.Score})
			}
		}
		SortRanking(ranking)
		for i, d := range ranking {
			qrels := ""
			for _, o := range ranking {
				g := "0"
				if o.Docno == d.Docno {
					g = "1"
				}
				qrels += "1 0 " + o.Docno + " " + g + "\n"
			}
			code, out, stderr := run(t, map[string]string{"q": qrels, "r": runText}, "-m recip_rank q r")
			if malformed {
				if code != 2 || !strings.Contains(stderr, "Malformed line") {
					t.Errorf("%q: ParseRunLine refuses a line, assay trec exits %d: %s", runText, code, stderr)
				}
				break
			}
			want := fmt.Sprintf("recip_rank            \tall\t%.4f\n", 1/float64(i+1))
			if code != 0 || out != want {
				t.Errorf("%q: %s at place %d of %v: assay trec says %q (exit %d, %s)", runText, d.Docno, i+1, ranking, out, code, stderr)
			}
		}
	}
}

// FuzzQrelsLine: ParseQrelsLine never panics, and accepts and grades any
// one line exactly as ParseQrels does.
func FuzzQrelsLine(f *testing.F) {
	f.Add([]byte("q1 0 d1 1"))
	f.Add([]byte("q1 0 d1 -2x extra"))
	f.Fuzz(func(t *testing.T, line []byte) {
		if bytes.IndexByte(line, '\n') >= 0 || len(line) > 0 && line[0] == '#' {
			return
		}
		whole, werr := ParseQrels(append(append([]byte(nil), line...), '\n'), "q")
		q, _, lerr := ParseQrelsLine(line)
		if (werr != nil) != (lerr != nil) {
			t.Fatalf("%q: ParseQrels %v, ParseQrelsLine %v", line, werr, lerr)
		}
		if werr == nil && (whole.topics[0].qid != q.Qid || whole.topics[0].grades[0] != q.Rel) {
			t.Fatalf("%q: ParseQrels %s/%d, ParseQrelsLine %+v", line, whole.topics[0].qid, whole.topics[0].grades[0], q)
		}
	})
}

// FuzzRunLine: ParseRunLine never panics, and a line it reads has the
// fields it says.
func FuzzRunLine(f *testing.F) {
	f.Add([]byte("q1 Q0 d1 1 2.5 tag"))
	f.Add([]byte("  # c"))
	f.Add([]byte("q1 Q0 d1 1 nan"))
	f.Fuzz(func(t *testing.T, line []byte) {
		r, skip, err := ParseRunLine(line)
		if skip || err != nil {
			return
		}
		if r.Qid == "" || r.Docno == "" || r.Tag == "" || strings.ContainsAny(r.Qid+r.Docno+r.Tag, " \t\r\n\v\f") {
			t.Fatalf("%q: %+v", line, r)
		}
	})
}
