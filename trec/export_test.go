package trec

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/assay-eval/assay/metric"
)

// TestWritersRoundTrip writes random rankings (with ties the target's
// scores would have had, id-less hits and unjudged documents) and
// judgments, evaluates the files with Main, and checks every value against
// metric.Spec.Eval on the ranking as given: the files carry the ranking
// exactly.
func TestWritersRoundTrip(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(7, 19))
	var runf, qrels bytes.Buffer
	rw, err := NewRunWriter(&runf, "tag")
	if err != nil {
		t.Fatal(err)
	}
	qw := NewQrelsWriter(&qrels)
	specs := []string{"ndcg@10", "ndcg", "recall@5", "precision@5", "mrr", "map", "hit@5", "rprec"}
	want := map[string]float64{}
	const topics = 40
	for ti := range topics {
		qid := fmt.Sprintf("t%02d", ti)
		judg := map[string]int{}
		for d := range 1 + r.IntN(12) {
			judg[fmt.Sprintf("d%d", d*2)] = r.IntN(4) - 1 + r.IntN(2) // -1..3
		}
		var ranking []string
		seen := map[string]bool{}
		for range 1 + r.IntN(15) {
			id := fmt.Sprintf("d%d", r.IntN(30))
			if r.IntN(10) == 0 {
				id = ""
			}
			if id != "" && seen[id] {
				continue
			}
			seen[id] = true
			ranking = append(ranking, id)
		}
		if err := rw.Add(qid, ranking); err != nil {
			t.Fatal(err)
		}
		if err := qw.Add(qid, judg); err != nil {
			t.Fatal(err)
		}
		for _, name := range specs {
			s, err := metric.Parse(name)
			if err != nil {
				t.Fatal(err)
			}
			want[name+"/"+qid] = s.Eval(ranking, judg, metric.Options{})
		}
	}
	if err := rw.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := qw.Flush(); err != nil {
		t.Fatal(err)
	}
	code, out, errs := run(t, map[string]string{"q": qrels.String(), "r": runf.String()},
		"-q -n -m ndcg_cut.10 -m ndcg -m recall.5 -m P.5 -m recip_rank -m map -m success.5 -m Rprec q r")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	names := map[string]string{"ndcg_cut_10": "ndcg@10", "ndcg": "ndcg", "recall_5": "recall@5", "P_5": "precision@5",
		"recip_rank": "mrr", "map": "map", "success_5": "hit@5", "Rprec": "rprec"}
	got := 0
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Split(line, "\t")
		name := names[strings.TrimSpace(f[0])]
		w, ok := want[name+"/"+f[1]]
		if !ok {
			t.Fatalf("unexpected row %q", line)
		}
		if s := fmt.Sprintf("%6.4f", w); s != f[2] {
			t.Errorf("%s %s: trec %s, metric %s", name, f[1], f[2], s)
		}
		got++
	}
	if got != len(want) {
		t.Errorf("%d rows, want %d", got, len(want))
	}
}

func TestWriterFields(t *testing.T) {
	t.Parallel()
	if _, err := NewRunWriter(&bytes.Buffer{}, "a b"); err == nil {
		t.Error("a tag with a space was accepted")
	}
	if _, err := NewRunWriter(&bytes.Buffer{}, ""); err == nil {
		t.Error("an empty tag was accepted")
	}
	rw, _ := NewRunWriter(&bytes.Buffer{}, "t")
	for _, tc := range []struct {
		qid  string
		docs []string
		want string
	}{
		{"q 1", []string{"a"}, `case id "q 1" holds whitespace`},
		{"#q", []string{"a"}, `case id "#q" starts with '#'`},
		{"q", []string{"a\tb"}, `case q: document id "a\tb" holds whitespace`},
		{"q", []string{"a\x00"}, `control byte`},
	} {
		err := rw.Add(tc.qid, tc.docs)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Add(%q, %q) = %v, want %q", tc.qid, tc.docs, err, tc.want)
		}
	}
	qw := NewQrelsWriter(&bytes.Buffer{})
	if err := qw.Add("q", map[string]int{"a b": 1}); err == nil {
		t.Error("a judged docno with a space was accepted")
	}
	var b bytes.Buffer
	rw, _ = NewRunWriter(&b, "t")
	rw.Add("q", []string{"x", "", "y"})
	rw.Flush()
	if want := "q Q0 x 1 3 t\nq Q0 assay:unnamed:2 2 2 t\nq Q0 y 3 1 t\n"; b.String() != want {
		t.Errorf("run lines:\n%s\nwant\n%s", b.String(), want)
	}
}
