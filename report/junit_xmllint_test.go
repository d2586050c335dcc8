package report

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/internal/shareddata"
)

// junitSchemas are the real schemas JUnit readers validate against
// (../shared/reference/junit: Jenkins' xunit-plugin junit-10.xsd and the
// Ant-derived junit-4.xsd). They are read at run time, never copied here.
var junitSchemas = []string{"junit-10.xsd", "jenkins-junit-4.xsd"}

// xmllint validates doc against each schema with `xmllint --noout
// --schema`. Without xmllint (Debian libxml2-utils) the test is skipped on
// a developer's machine and fails in CI, where .ci/run installs it.
func xmllint(t testing.TB, name string, doc []byte) {
	t.Helper()
	bin, err := exec.LookPath("xmllint")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("xmllint not found: CI must install libxml2-utils (.ci/run does)")
		}
		t.Skip("xmllint not found (apt-get install libxml2-utils)")
	}
	dir := filepath.Join(shareddata.Dir(t), "reference", "junit")
	file := filepath.Join(t.TempDir(), name+".xml")
	if err := os.WriteFile(file, doc, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, xsd := range junitSchemas {
		out, err := exec.Command(bin, "--noout", "--schema", filepath.Join(dir, xsd), file).CombinedOutput()
		if err != nil {
			t.Errorf("%s does not validate against %s: %v\n%s\n%s", name, xsd, err, out, doc)
		}
	}
}

// junitRuns are runs of every kind the JUnit report must carry: passing,
// failing (with gates, trials, errors, skipped cases and hostile strings),
// errored, incomplete, judgments-only, empty.
func junitRuns() map[string]*assay.Run {
	pass := func(b bool) *bool { return &b }
	passing := sampleRun()
	passing.Gates = nil
	for i := range passing.Cases {
		passing.Cases[i].Pass, passing.Cases[i].Error = pass(true), nil
	}
	errored := sampleRun()
	for i := range errored.Cases {
		errored.Cases[i].Pass = pass(false)
		errored.Cases[i].Error = &assay.Error{Class: assay.ErrTransport, Message: "connection refused"}
	}
	incomplete := ciRun()
	incomplete.Status = assay.StatusIncomplete
	hostile := ciRun()
	hostile.Suite.Name = "a\"<b>&\x00c"
	hostile.Cases[3].Checks[0].Detail = "bad \x01 byte ]]> and \ufffe"
	positioned := ciRun()
	for i := range positioned.Cases {
		positioned.Cases[i].Source = fmt.Sprintf("evals/kb.yaml:%d", 10+i)
	}
	hostile.Cases[0].Source = "a\"<b>&c:1.yaml:7"
	return map[string]*assay.Run{
		"passing": passing, "failing": ciRun(), "errored": errored, "incomplete": incomplete,
		"judgments-only": judgmentsOnlyRun(), "empty": {RunID: "x", Status: assay.StatusComplete}, "hostile": hostile,
		"positioned": positioned,
	}
}

// judgmentsOnlyRun is a run of a suite whose cases state only judgments
// (a BEIR or TREC set): nothing is graded, the metrics are the result.
func judgmentsOnlyRun() *assay.Run {
	r := ciRun()
	r.Gates = []assay.GateResult{{Expr: "ndcg@10 >= 0.3", Pass: true, Value: ptr(0.4125), Bound: 0.3, Op: ">=", Source: "kb.yaml:5"}}
	r.Summary = assay.Summary{Cases: 10, Metrics: r.Summary.Metrics, LatencyMs: r.Summary.LatencyMs}
	for i := range r.Cases {
		c := &r.Cases[i]
		c.Pass, c.Checks, c.Error = nil, nil, nil
		c.Metrics = map[string]float64{"ndcg@10": 0.25 * float64(i%4)}
	}
	return r
}

func TestJUnitValidatesAgainstRealSchemas(t *testing.T) {
	for name, run := range junitRuns() {
		t.Run(name, func(t *testing.T) {
			var b bytes.Buffer
			if err := JUnit(&b, run); err != nil {
				t.Fatal(err)
			}
			xmllint(t, name, b.Bytes())
		})
	}
	t.Run("matrix", func(t *testing.T) {
		runs, v := matrixRuns()
		var b bytes.Buffer
		if err := JUnitMatrix(&b, runs, v); err != nil {
			t.Fatal(err)
		}
		xmllint(t, "matrix", b.Bytes())
	})
}

// TestXmllintRejects makes sure the schema check can fail.
func TestXmllintRejects(t *testing.T) {
	if _, err := exec.LookPath("xmllint"); err != nil {
		t.Skip("xmllint not found")
	}
	ft := &fakeT{TB: t}
	xmllint(ft, "bad", []byte(`<testsuites><testsuite name="a"><testcase/></testsuite></testsuites>`))
	if !ft.failed || !strings.Contains(ft.msg, "does not validate") {
		t.Errorf("xmllint accepted a testsuite without its attributes: %q", ft.msg)
	}
}

type fakeT struct {
	testing.TB
	failed bool
	msg    string
}

func (f *fakeT) Errorf(format string, args ...any) {
	f.failed = true
	f.msg += fmt.Sprintf(format, args...)
}
