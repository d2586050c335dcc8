// Package trecgen writes synthetic TREC qrels and run files for tests and
// benchmarks of `assay trec`. The output is a pure function of Params: the
// same parameters give the same bytes.
//
// The pairs exercise the corners trec_eval semantics care about: graded
// judgments (0..MaxRel), topics whose judgments are all non-relevant,
// qrels topics missing from the run, run-only topics, exact score ties (so
// the docno tie-break matters), duplicate docnos inside a ranking, negative
// ("pooled, unjudged") grades and interleaved topics (lines shuffled).
package trecgen

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
)

// Params describe a pair.
type Params struct {
	Seed         uint64
	Queries      int     // qrels topics
	Depth        int     // documents retrieved per run topic
	JudgedMin    int     // judgments per topic, at least
	JudgedMax    int     // judgments per topic, at most
	MaxRel       int     // highest grade
	NoRelFrac    float64 // topics whose judgments are all 0
	MissingFrac  float64 // qrels topics left out of the run
	ExtraFrac    float64 // run-only topics, as a fraction of Queries
	TieFrac      float64 // probability that a document repeats the previous score
	DupFrac      float64 // probability that a topic repeats one docno
	UnjudgedFrac float64 // qrels lines written with grade -1
	Shuffle      bool    // interleave the run lines of all topics
	Collection   int     // size of the docno space
	Tag          string
}

// Defaults returns a small pair with every corner present.
func Defaults() Params {
	return Params{Seed: 1, Queries: 50, Depth: 100, JudgedMin: 1, JudgedMax: 50, MaxRel: 3,
		NoRelFrac: 0.1, MissingFrac: 0.1, ExtraFrac: 0.05, TieFrac: 0.1, Collection: 8841823, Tag: "synthrun"}
}

// Write generates the pair.
func Write(qrels, run io.Writer, p Params) error {
	if p.Queries < 0 || p.Depth < 0 || p.JudgedMin < 1 || p.JudgedMax < p.JudgedMin || p.MaxRel < 0 {
		return fmt.Errorf("trecgen: need queries, depth >= 0, 1 <= judged-min <= judged-max, max-rel >= 0")
	}
	if p.Collection < p.Depth+p.JudgedMax+1 {
		p.Collection = p.Depth + p.JudgedMax + 1
	}
	rng := rand.New(rand.NewPCG(p.Seed, p.Seed^0x9e3779b97f4a7c15))
	qw := bufio.NewWriterSize(qrels, 1<<16)
	rw := bufio.NewWriterSize(run, 1<<16)
	extra := int(float64(p.Queries)*p.ExtraFrac + 0.5)
	qids := make([]int, 0, p.Queries+extra)
	seenQ := map[int]bool{}
	for len(qids) < p.Queries+extra {
		q := 1 + rng.IntN(10*(p.Queries+extra)+1000)
		if !seenQ[q] {
			seenQ[q] = true
			qids = append(qids, q)
		}
	}
	var lines [][]byte // only when shuffling
	emit := func(b []byte) error {
		if p.Shuffle {
			lines = append(lines, append([]byte(nil), b...))
			return nil
		}
		_, err := rw.Write(b)
		return err
	}
	var buf []byte
	type judged struct{ doc, rel int }
	runTopic := func(qid int, js []judged) error {
		chosen := make([]int, 0, p.Depth)
		seen := map[int]bool{}
		for _, j := range js {
			if len(chosen) < p.Depth && rng.Float64() < 0.6 {
				chosen = append(chosen, j.doc)
				seen[j.doc] = true
			}
		}
		for len(chosen) < p.Depth {
			d := rng.IntN(p.Collection)
			if !seen[d] {
				seen[d] = true
				chosen = append(chosen, d)
			}
		}
		rng.Shuffle(len(chosen), func(i, k int) { chosen[i], chosen[k] = chosen[k], chosen[i] })
		if len(chosen) >= 2 && rng.Float64() < p.DupFrac {
			chosen[rng.IntN(len(chosen))] = chosen[rng.IntN(len(chosen))]
		}
		score := 200000 + rng.IntN(400000) // in units of 1e-4
		for rank, d := range chosen {
			if rank > 0 && rng.Float64() >= p.TieFrac {
				score -= 1 + rng.IntN(400)
			}
			buf = strconv.AppendInt(buf[:0], int64(qid), 10)
			buf = append(buf, " Q0 D"...)
			buf = strconv.AppendInt(buf, int64(d), 10)
			buf = append(buf, ' ')
			buf = strconv.AppendInt(buf, int64(rank+1), 10)
			buf = append(buf, ' ')
			buf = appendScore(buf, score)
			buf = append(buf, ' ')
			buf = append(buf, p.Tag...)
			buf = append(buf, '\n')
			if err := emit(buf); err != nil {
				return err
			}
		}
		return nil
	}
	for _, qid := range qids[:p.Queries] {
		norel := rng.Float64() < p.NoRelFrac
		n := p.JudgedMin + rng.IntN(p.JudgedMax-p.JudgedMin+1)
		js := make([]judged, 0, n)
		seen := map[int]bool{}
		for len(js) < n {
			d := rng.IntN(p.Collection)
			if seen[d] {
				continue
			}
			seen[d] = true
			rel := 0
			if !norel {
				rel = rng.IntN(p.MaxRel + 1)
			}
			if rng.Float64() < p.UnjudgedFrac {
				rel = -1
			}
			js = append(js, judged{d, rel})
		}
		for _, j := range js {
			fmt.Fprintf(qw, "%d 0 D%d %d\n", qid, j.doc, j.rel)
		}
		if rng.Float64() >= p.MissingFrac {
			if err := runTopic(qid, js); err != nil {
				return err
			}
		}
	}
	for _, qid := range qids[p.Queries:] {
		if err := runTopic(qid, nil); err != nil {
			return err
		}
	}
	if p.Shuffle {
		rng.Shuffle(len(lines), func(i, k int) { lines[i], lines[k] = lines[k], lines[i] })
		for _, l := range lines {
			if _, err := rw.Write(l); err != nil {
				return err
			}
		}
	}
	if err := qw.Flush(); err != nil {
		return err
	}
	return rw.Flush()
}

// appendScore writes s·1e-4 with four decimals.
func appendScore(b []byte, s int) []byte {
	if s < 0 {
		b = append(b, '-')
		s = -s
	}
	b = strconv.AppendInt(b, int64(s/10000), 10)
	b = append(b, '.')
	f := s % 10000
	for d := 1000; d > 0; d /= 10 {
		b = append(b, byte('0'+f/d%10))
	}
	return b
}
