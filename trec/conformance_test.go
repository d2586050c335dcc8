package trec

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/assay-eval/assay/internal/shareddata"
)

func sharedDir(tb testing.TB) string { return shareddata.Dir(tb) }

func osIO(dir string, stdout, stderr *bytes.Buffer) IO {
	return IO{
		Stdin:  strings.NewReader(""),
		Stdout: stdout,
		Stderr: stderr,
		Open: func(name string) (io.ReadCloser, error) {
			if !filepath.IsAbs(name) {
				name = filepath.Join(dir, name)
			}
			return os.Open(name)
		},
	}
}

// The upstream `make quicktest` pairs and our generated v10.0 outputs, as
// listed in ../shared/conformance/trec_eval/README.md.
var conformance = []struct {
	want string
	args string
}{
	{"out.test", "qrels.test results.test"},
	{"out.test", "qrels.test.with-comments results.test"},
	{"out.comment.test", "qrels.comment.test results.comment.test"},
	{"out.test.a", "-m all_trec qrels.test results.test"},
	{"out.test.aq", "-m all_trec -q qrels.test results.test"},
	{"out.test.aqc", "-m all_trec -q -c qrels.test results.trunc"},
	{"out.test.aqcM", "-m all_trec -q -c -M100 qrels.test results.trunc"},
	{"out.test.aql", "-m all_trec -mrelstring.20 -q -l2 qrels.rel_level results.test"},
	{"out.test.meas_params", "-q -miprec_at_recall..10,.20,.25,.75,.50 -m P.5,7,3 -m recall.20,2000 -m Rprec_mult.5.0,0.2,0.35 -mutility.2,-1,0,0 -m 11pt_avg..25,.5,.75 -mndcg.1=3,2=9,4=4.5 -mndcg_cut.10,20,23.4 -msuccess.2,5,20 qrels.test results.test"},
	{"generated/out.302.q.all_trec.v10.0", "-q -m all_trec qrels-302.test results-302.test"},
	{"generated/out.comment.q.all_trec.v10.0", "-q -m all_trec qrels.comment.test results.comment.test"},
}

func TestConformance(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(sharedDir(t), "conformance", "trec_eval")
	for _, c := range conformance {
		t.Run(c.want+" "+c.args, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join(dir, c.want))
			if err != nil {
				t.Fatal(err)
			}
			var stdout, stderr bytes.Buffer
			code := Main(strings.Fields(c.args), osIO(dir, &stdout, &stderr))
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			if got := stdout.Bytes(); !bytes.Equal(got, want) {
				t.Errorf("output differs from %s:\n%s", c.want, lineDiff(string(want), string(got)))
			}
		})
	}
}

// lineDiff reports the first differing lines (enough to locate a bug).
func lineDiff(want, got string) string {
	w := strings.Split(want, "\n")
	g := strings.Split(got, "\n")
	var b strings.Builder
	shown := 0
	for i := 0; i < max(len(w), len(g)) && shown < 15; i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			b.WriteString("line " + itoa(i+1) + ":\n  want " + wl + "\n  got  " + gl + "\n")
			shown++
		}
	}
	return b.String()
}

func itoa(i int) string { return strconv.Itoa(i) }
