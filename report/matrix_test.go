package report

import (
	"bytes"
	"testing"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/gate"
)

func matrixRuns() ([]*assay.Run, gate.Verdict) {
	fast, thorough := ciRun(), ciRun()
	fast.RunID, thorough.RunID = "run-fast", "run-thorough"
	fast.Variant = map[string]string{"mode": "fast"}
	thorough.Variant = map[string]string{"mode": "thorough"}
	thorough.Summary.Metrics = map[string]assay.MetricAgg{"ndcg@10": {Mean: 0.39, N: 8}, "mrr": {Mean: 0.5, N: 8}}
	thorough.Gates = thorough.Gates[:1]
	o, _ := gate.ParseOrdering("ndcg@10: fast <= thorough", "targets.yaml:9")
	// The ordering is checked on the runs' headers (no cases, so by their
	// means alone): a broken ordering, which is what these renderers are
	// tested on. With the cases, 4 paired cases could not show a reversal
	// and the ordering would hold.
	fastHead, thoroughHead := *fast, *thorough
	fastHead.Cases, thoroughHead.Cases = nil, nil
	v := gate.CheckOrderings([]gate.Ordering{o}, map[string]*assay.Run{"fast": &fastHead, "thorough": &thoroughHead})
	return []*assay.Run{fast, thorough}, v
}

func TestMarkdownMatrixGolden(t *testing.T) {
	t.Parallel()
	runs, v := matrixRuns()
	var b bytes.Buffer
	if err := MarkdownMatrix(&b, runs, v); err != nil {
		t.Fatal(err)
	}
	golden(t, "TestMarkdownMatrix.golden.md", b.Bytes())
}

func TestJUnitMatrix(t *testing.T) {
	t.Parallel()
	runs, v := matrixRuns()
	var b bytes.Buffer
	if err := JUnitMatrix(&b, runs, v); err != nil {
		t.Fatal(err)
	}
	if problems := checkJUnit(b.Bytes()); len(problems) > 0 {
		t.Fatalf("schema problems: %v\n%s", problems, b.String())
	}
	golden(t, "TestJUnitMatrix.golden.xml", b.Bytes())
	for _, want := range []string{`<testsuite name="kb [fast]" tests="10"`, `<testsuite name="kb [thorough] gates" tests="1" failures="0"`,
		`<testsuite name="kb orderings" tests="1" failures="1"`, `type="ordering"`} {
		if !bytes.Contains(b.Bytes(), []byte(want)) {
			t.Errorf("JUnit matrix lacks %s", want)
		}
	}
}
