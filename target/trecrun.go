package target

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/internal/boundedfile"
)

// TrecRun is a target that answers from a TREC run file (`qid Q0 docno rank
// score tag`, whitespace separated): the ranking of the case whose id is the
// qid, ordered as trec_eval orders it (score descending, then docno
// descending in byte order; the rank column is ignored). It gives rankings
// only: no answer, no citations, no latency. A case with no line in the run
// gets an empty ranking (it was not retrieved for), which scores zero.
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
	seen := map[[2]string]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), boundedfile.MaxRunLine)
	line := 0
	for sc.Scan() {
		line++
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		if len(fields) != 6 {
			return nil, fmt.Errorf("%s:%d: a run line has 6 fields (qid Q0 docno rank score tag), this one has %d", path, line, len(fields))
		}
		score, err := strconv.ParseFloat(fields[4], 64)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: score %q is not a number", path, line, fields[4])
		}
		k := [2]string{fields[0], fields[2]}
		if at, dup := seen[k]; dup {
			return nil, fmt.Errorf("%s:%d: docno %q appears twice for topic %q (first at line %d)", path, line, fields[2], fields[0], at)
		}
		seen[k] = line
		r.tag = fields[5]
		r.runs[fields[0]] = append(r.runs[fields[0]], assay.Hit{ID: fields[2], Score: score})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %w", path, line+1, boundedfile.ScanErr(err, boundedfile.MaxRunLine))
	}
	for _, hits := range r.runs {
		sort.Slice(hits, func(i, j int) bool {
			if hits[i].Score != hits[j].Score {
				return hits[i].Score > hits[j].Score
			}
			return hits[i].ID > hits[j].ID
		})
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
