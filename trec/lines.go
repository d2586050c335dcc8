package trec

import (
	"bytes"
	"errors"
	"slices"
)

// This file is the per-line reader of qrels and run files that assay's
// other packages share (suite's TREC qrels, the trec: target): it reads a
// line exactly as the whole-file readers of this package do (ParseQrels and
// the run reader), which keep their own loops for speed.

// ErrMalformed is the reason of a line trec_eval refuses ("Malformed
// line N"): too few fields, or (in qrels) too many.
var ErrMalformed = errors.New("malformed line")

// QrelsLine is one judgment of a qrels file: "qid iter docno rel".
type QrelsLine struct {
	Qid, Docno string
	// Rel is the grade as C atol reads it (trec_eval's rule): its leading
	// integer ("2x" is 2, "x" is 0), negative grades kept (judged, not
	// relevant).
	Rel int
}

// ParseQrelsLine reads one line of a qrels file (without its '\n'). skip
// is true for a comment line (a '#' in column 0), which is not a
// judgment. A blank line and a line of fewer or more than four fields are
// ErrMalformed, as in trec_eval.
func ParseQrelsLine(line []byte) (q QrelsLine, skip bool, err error) {
	if len(line) > 0 && line[0] == '#' {
		return QrelsLine{}, true, nil
	}
	f, extra := fields(line, 4)
	if len(f) < 4 || extra {
		return QrelsLine{}, false, ErrMalformed
	}
	return QrelsLine{Qid: string(f[0]), Docno: string(f[2]), Rel: atol(string(f[3]))}, false, nil
}

// RunLine is one ranked document of a run file: "qid Q0 docno rank score
// tag". Q0 and rank are not kept: trec_eval ignores them.
type RunLine struct {
	Qid, Docno, Tag string
	// Score is the score as C atof reads it (trec_eval's rule): its longest
	// numeric prefix ("1.5x" is 1.5, "x" is 0; "nan" and "inf" are read).
	Score float64
}

// ParseRunLine reads one line of a run file (without its '\n'). skip is
// true for a blank line and for a comment (its first non-blank byte '#'),
// which hold no document. A line of fewer than six fields is ErrMalformed;
// what follows the sixth is ignored, as in trec_eval.
func ParseRunLine(line []byte) (r RunLine, skip bool, err error) {
	t := bytes.TrimLeft(line, " \t\r\v\f")
	if len(t) == 0 || t[0] == '#' {
		return RunLine{}, true, nil
	}
	f, _ := fields(t, 6)
	if len(f) < 6 {
		return RunLine{}, false, ErrMalformed
	}
	return RunLine{Qid: string(f[0]), Docno: string(f[2]), Score: parseFloatPrefix(f[4]), Tag: string(f[5])}, false, nil
}

// fields splits line at spaces and tabs into at most n fields; extra is
// true when something other than blanks follows the nth.
func fields(line []byte, n int) (f [][]byte, extra bool) {
	f = make([][]byte, 0, n)
	p := 0
	for len(f) < n {
		for p < len(line) && isSpace(line[p]) {
			p++
		}
		if p == len(line) {
			return f, false
		}
		s := p
		for p < len(line) && !isSpace(line[p]) {
			p++
		}
		f = append(f, line[s:p])
	}
	for ; p < len(line); p++ {
		if !isSpace(line[p]) {
			return f, true
		}
	}
	return f, false
}

// Ranked is a document of a topic's ranking and its score.
type Ranked struct {
	Docno string
	Score float64
}

// SortRanking puts a topic's documents in trec_eval's order: score
// descending, then docno descending in byte order; a NaN score ranks below
// every number, so the order is total. The rank column plays no part.
func SortRanking(r []Ranked) {
	slices.SortStableFunc(r, func(a, b Ranked) int {
		return cmpItems(item{score: a.Score, doc: []byte(a.Docno)}, item{score: b.Score, doc: []byte(b.Docno)})
	})
}
