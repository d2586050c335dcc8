package grade_test

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/grade"
	"github.com/assay-eval/assay/trec"
)

// TestUnjudgedEqualsTrecUnj grades random judged cases and checks each
// case's unj@k three ways on the same ranking: as `assay trec -q -m unj.k`
// prints it for the qrels and run built from the case, and as trec_eval
// defines unj_k (ranks among 1..min(k, n) whose document is not in the
// qrels or has a negative grade, over k), counted here by hand.
func TestUnjudgedEqualsTrecUnj(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(23, 8))
	suite := &assay.Suite{Metrics: []string{"ndcg@10", "precision@5", "recall@20", "mrr"}, Defaults: assay.Defaults{K: 7}}
	o, err := grade.NewOptions(suite)
	if err != nil {
		t.Fatal(err)
	}
	cuts := []int{5, 7, 10, 20} // the metrics' cutoffs, and k for mrr
	var qrels, runf strings.Builder
	want := map[string]map[string]float64{} // case -> unj@k -> value
	for q := range 60 {
		c := assay.Case{ID: fmt.Sprintf("q%02d", q), Query: "x", Judgments: map[string]int{}}
		for d := range 30 {
			switch r := rng.IntN(10); {
			case r < 3: // not in the qrels
			case r < 4:
				c.Judgments[fmt.Sprintf("d%d", d)] = -1 // pooled, unjudged
			default:
				c.Judgments[fmt.Sprintf("d%d", d)] = rng.IntN(4)
			}
		}
		if len(c.Judgments) == 0 {
			c.Judgments["d0"] = 1
		}
		var obs assay.Observation
		for range rng.IntN(25) {
			obs.Retrieved = append(obs.Retrieved, assay.Hit{ID: fmt.Sprintf("d%d", rng.IntN(30))}) // repeats too
		}
		res := grade.Case(c, obs, o)
		ranking := grade.Ranking(obs)
		for id, g := range c.Judgments {
			fmt.Fprintf(&qrels, "%s 0 %s %d\n", c.ID, id, g)
		}
		for i, id := range ranking {
			fmt.Fprintf(&runf, "%s Q0 %s %d %d run\n", c.ID, id, i+1, 1000-i)
		}
		if len(ranking) == 0 { // trec_eval skips a topic without a ranked document
			continue
		}
		want[c.ID] = map[string]float64{}
		for _, k := range cuts {
			name := grade.UnjudgedName(k)
			got, ok := res.Unjudged[name]
			if !ok {
				t.Fatalf("%s: no %s in %v", c.ID, name, res.Unjudged)
			}
			unj := 0
			for i := 0; i < k && i < len(ranking); i++ {
				if g, judged := c.Judgments[ranking[i]]; !judged || g < 0 {
					unj++
				}
			}
			if def := float64(unj) / float64(k); got != def {
				t.Errorf("%s: %s = %v, trec_eval's definition gives %v", c.ID, name, got, def)
			}
			want[c.ID]["unj_"+strconv.Itoa(k)] = got
		}
	}
	var out, errb bytes.Buffer
	files := map[string]string{"qrels": qrels.String(), "run": runf.String()}
	sys := trec.IO{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Open: func(name string) (io.ReadCloser, error) {
		s, ok := files[name]
		if !ok {
			return nil, fs.ErrNotExist
		}
		return io.NopCloser(strings.NewReader(s)), nil
	}}
	if code := trec.Main([]string{"-q", "-m", "unj.5,7,10,20", "qrels", "run"}, sys); code != 0 {
		t.Fatalf("assay trec exited %d: %s", code, errb.String())
	}
	seen := 0
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 || f[1] == "all" {
			continue
		}
		w, ok := want[f[1]][f[0]]
		if !ok {
			t.Errorf("assay trec printed %q, not a case's unj", line)
			continue
		}
		seen++
		if got := strconv.FormatFloat(w, 'f', 4, 64); got != f[2] {
			t.Errorf("%s %s: grade %s, assay trec %s", f[1], f[0], got, f[2])
		}
	}
	if n := len(want) * len(cuts); seen != n || n < 150 {
		t.Errorf("compared %d values of assay trec's output, want %d (>= 150)", seen, n)
	}
}
