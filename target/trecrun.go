package target

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/internal/boundedfile"
	"github.com/assay-eval/assay/internal/diag"
	"github.com/assay-eval/assay/trec"
)

// TrecRun is a target that answers from a TREC run file (`qid Q0 docno rank
// score tag`, whitespace separated): the ranking of the case whose id is the
// qid. Each line is read by trec.ParseRunLine and each ranking ordered by
// trec.SortRanking, so that the file reads exactly as `assay trec` (and
// trec_eval) reads it: blank and '#' lines skipped, the score is C atof
// ("1.5x" is 1.5, "nan" is NaN), the order is score descending then docno
// descending (a NaN score last; the rank column is ignored), and a docno
// twice in one topic is refused. It gives rankings only: no answer, no
// citations, no latency. A case with no line in the run gets an empty
// ranking (it was not retrieved for), which scores zero.
type TrecRun struct {
	path string
	tag  string
	runs map[string][]assay.Hit
}

var _ assay.Target = (*TrecRun)(nil)

func newTrecRun(path string, o Options) (assay.Target, error) {
	r, err := OpenTrecRun(path)
	if err != nil {
		return nil, err
	}
	return r, nil
}

// OpenTrecRun reads a run file; a malformed line is an error naming file:line.
func OpenTrecRun(path string) (*TrecRun, error) {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return nil, fmt.Errorf("trec run: %s is a directory, not a run file", path)
	}
	f, err := boundedfile.Open(path, boundedfile.RunFile)
	if err != nil {
		return nil, fmt.Errorf("trec run: %w", err)
	}
	defer f.Close()
	r := &TrecRun{path: path, runs: map[string][]assay.Hit{}}
	ranked := map[string][]trec.Ranked{}
	firstAt := map[[2]string]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), boundedfile.MaxRunLine)
	line := 0
	for sc.Scan() {
		line++
		l, skip, err := trec.ParseRunLine(sc.Bytes())
		if skip {
			continue
		}
		if err != nil {
			return nil, diag.Errorf(path, line, 0, "a run line has 6 fields (qid Q0 docno rank score tag), this one has %d", len(strings.Fields(sc.Text())))
		}
		k := [2]string{l.Qid, l.Docno}
		if at, dup := firstAt[k]; dup {
			return nil, diag.Errorf(path, line, 0, "docno %q appears twice for topic %q (first at line %d)", l.Docno, l.Qid, at)
		}
		firstAt[k] = line
		r.tag = l.Tag
		ranked[l.Qid] = append(ranked[l.Qid], trec.Ranked{Docno: l.Docno, Score: l.Score})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %w", path, line+1, boundedfile.ScanErr(err, boundedfile.MaxRunLine))
	}
	for qid, docs := range ranked {
		trec.SortRanking(docs)
		hits := make([]assay.Hit, len(docs))
		for i, d := range docs {
			hits[i] = assay.Hit{ID: d.Docno, Score: d.Score}
		}
		r.runs[qid] = hits
	}
	return r, nil
}

// Observe returns the whole ranking for the case's id (metrics apply their own cutoffs).
func (r *TrecRun) Observe(ctx context.Context, c assay.Case) (assay.Observation, error) {
	hits := r.runs[c.ID]
	return assay.Observation{Case: c.ID, Trial: assay.TrialFrom(ctx), Retrieved: hits}, nil
}

// Describe names the run file and its tag.
func (r *TrecRun) Describe() assay.TargetInfo {
	return assay.TargetInfo{Kind: "trec", Spec: "trec:" + r.path, Config: map[string]any{"file": r.path, "tag": r.tag, "topics": len(r.runs)}}
}
