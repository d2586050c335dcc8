package suite

import (
	"strings"
	"testing"
)

// TREC qrels read as `assay trec` reads them: a negative grade is judged
// non-relevant, a '#' line is a comment, a docno judged twice for a topic
// is refused (trec_eval refuses to evaluate that topic).
func TestTRECQrelsReadLikeTrecEval(t *testing.T) {
	t.Parallel()
	judg, order, err := parseTRECQrels("qrels", []byte("# judged by hand\nq1 0 d1 2\nq1 0 d2 -1\n\nq2 0 d3 1\n"))
	if err != nil {
		t.Fatal(err)
	}
	if g, ok := judg["q1"]["d2"]; !ok || g != 0 {
		t.Errorf("negative grade: got %d, %v; want 0, judged", g, ok)
	}
	if strings.Join(order, ",") != "q1,q2" || judg["q1"]["d1"] != 2 || judg["q2"]["d3"] != 1 {
		t.Errorf("got %v %v", order, judg)
	}
	_, _, err = parseTRECQrels("qrels", []byte("q1 0 d1 2\nq1 0 d2 1\nq1 0 d1 0\n"))
	if want := `qrels:3: docno "d1" is judged twice for topic "q1" (first at line 1)`; err == nil || err.Error() != want {
		t.Errorf("duplicate docno: got %v, want %s", err, want)
	}
}
