package report

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/assay-eval/assay"
)

func TestJUnitGolden(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := JUnit(&b, ciRun()); err != nil {
		t.Fatal(err)
	}
	golden(t, "TestJUnit.golden.xml", b.Bytes())
	if problems := checkJUnit(b.Bytes()); len(problems) > 0 {
		t.Errorf("JUnit output breaks the schema:\n%s", strings.Join(problems, "\n"))
	}
}

func TestJUnitSchemaAcrossRuns(t *testing.T) {
	t.Parallel()
	incomplete := ciRun()
	incomplete.Status = assay.StatusIncomplete
	incomplete.Gates = nil
	single := sampleRun()
	empty := &assay.Run{RunID: "x", Status: assay.StatusComplete}
	hostile := ciRun()
	hostile.Suite.Name = "a\"<b>&\x00c"
	hostile.Cases[3].Checks[0].Detail = "bad \x01 byte ]]> and \ufffe"
	for name, run := range map[string]*assay.Run{"incomplete": incomplete, "single": single, "empty": empty, "hostile": hostile} {
		t.Run(name, func(t *testing.T) {
			var b bytes.Buffer
			if err := JUnit(&b, run); err != nil {
				t.Fatal(err)
			}
			if problems := checkJUnit(b.Bytes()); len(problems) > 0 {
				t.Errorf("schema problems:\n%s\n%s", strings.Join(problems, "\n"), b.String())
			}
		})
	}
}

func TestJUnitCarriesFacts(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	JUnit(&b, ciRun())
	var doc junitSuites
	if err := xml.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	cases := doc.Suites[0]
	if cases.Tests != 10 || cases.Failures != 3 || cases.Errors != 1 || cases.Skipped != 0 {
		t.Errorf("counts tests=%d failures=%d errors=%d skipped=%d, want 10 3 1 0", cases.Tests, cases.Failures, cases.Errors, cases.Skipped)
	}
	byName := map[string]junitCase{}
	for _, c := range cases.Cases {
		byName[c.Name] = c
	}
	q3 := byName["q3 (trial 0)"]
	if q3.Failure == nil || q3.Failure.Message != `answer_includes: missing "<sha-256>" (and 1 more)` ||
		!strings.Contains(q3.Failure.Body, `answer_excludes: found "md5" | "sha1"`) || q3.Failure.Type != "answer_includes" {
		t.Errorf("q3 trial 0 failure = %+v", q3.Failure)
	}
	if e := byName["q4 (trial 1)"].Error; e == nil || e.Type != "timeout" || e.Message != "timeout: no observation after 30s" {
		t.Errorf("q4 trial 1 error = %+v", e)
	}
	if byName["q2 (trial 1)"].Time != "2.300" {
		t.Errorf("time = %q, want latency in seconds", byName["q2 (trial 1)"].Time)
	}
	if q5 := byName["q5 (trial 0)"]; q5.Skipped != nil || q5.SystemOut != "measured, not graded (the case states judgments only)\nmetrics: ndcg@10=0.25\n" {
		t.Errorf("judgments-only q5 = %+v, want a measured testcase with its metrics", q5)
	}
	metrics := doc.Suites[1]
	if metrics.Name != "kb metrics" || metrics.Tests != 1 || metrics.Cases[0].Name != "ndcg@10" ||
		metrics.Cases[0].SystemOut != "ndcg@10 = 0.4125, mean over 8 judged cases\n" {
		t.Errorf("metrics suite = %+v", metrics)
	}
	gates := doc.Suites[2]
	if gates.Tests != 2 || gates.Failures != 1 || gates.Cases[1].Failure.Message != "value 2300, bound <= 1000" {
		t.Errorf("gates suite = %+v", gates)
	}
}

// TestCheckJUnitRejects makes sure the schema check can fail.
func TestCheckJUnitRejects(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, doc, want string }{
		{"root", `<testsuite name="a" tests="0"/>`, "root element is <testsuite>"},
		{"missing attr", `<testsuites><testsuite name="a" tests="1" failures="0" errors="0" skipped="0" time="0" timestamp="2026-11-30T09:00:00" hostname="h"><properties/><testcase classname="c" time="0"/><system-out/><system-err/></testsuite></testsuites>`, "testcase: missing attribute name"},
		{"bad count", `<testsuites><testsuite name="a" tests="2" failures="0" errors="0" skipped="0" time="0" timestamp="2026-11-30T09:00:00" hostname="h"><properties/><testcase name="x" classname="c" time="0"/><system-out/><system-err/></testsuite></testsuites>`, "tests=2 but 1 testcase"},
		{"order", `<testsuites><testsuite name="a" tests="1" failures="0" errors="0" skipped="0" time="0" timestamp="2026-11-30T09:00:00" hostname="h"><properties/><system-out/><testcase name="x" classname="c" time="0"/><system-err/></testsuite></testsuites>`, "out of order"},
		{"bad time", `<testsuites><testsuite name="a" tests="1" failures="1" errors="0" skipped="0" time="1e3" timestamp="2026-11-30T09:00:00" hostname="h"><properties/><testcase name="x" classname="c" time="0"><failure message="m"/></testcase><system-out/><system-err/></testsuite></testsuites>`, "time=\"1e3\" is not a decimal"},
		{"failure type", `<testsuites><testsuite name="a" tests="1" failures="1" errors="0" skipped="0" time="0" timestamp="2026-11-30T09:00:00" hostname="h"><properties/><testcase name="x" classname="c" time="0"><failure message="m"/></testcase><system-out/><system-err/></testsuite></testsuites>`, "failure: missing attribute type"},
		{"timestamp", `<testsuites><testsuite name="a" tests="0" failures="0" errors="0" skipped="0" time="0" timestamp="yesterday" hostname="h"><properties/><system-out/><system-err/></testsuite></testsuites>`, "timestamp"},
		{"two results", `<testsuites><testsuite name="a" tests="1" failures="1" errors="1" skipped="0" time="0" timestamp="2026-11-30T09:00:00" hostname="h"><properties/><testcase name="x" classname="c" time="0"><failure type="t" message="m"/><error type="t" message="m"/></testcase><system-out/><system-err/></testsuite></testsuites>`, "more than one of"},
		{"not xml", `<testsuites>`, "not well-formed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			problems := checkJUnit([]byte(tt.doc))
			if !strings.Contains(strings.Join(problems, "\n"), tt.want) {
				t.Errorf("problems = %q, want one containing %q", problems, tt.want)
			}
		})
	}
}

// xnode is a parsed XML element.
type xnode struct {
	name     string
	attrs    map[string]string
	children []*xnode
}

func parseXML(data []byte) (*xnode, error) {
	dec := xml.NewDecoder(bytes.NewReader(data))
	var stack []*xnode
	var root *xnode
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			n := &xnode{name: t.Name.Local, attrs: map[string]string{}}
			for _, a := range t.Attr {
				n.attrs[a.Name.Local] = a.Value
			}
			if len(stack) > 0 {
				p := stack[len(stack)-1]
				p.children = append(p.children, n)
			} else if root == nil {
				root = n
			}
			stack = append(stack, n)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		}
	}
	if root == nil || len(stack) != 0 {
		return nil, fmt.Errorf("unexpected end of document")
	}
	return root, nil
}

var (
	xsDecimal   = regexp.MustCompile(`^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)$`)
	xsTimestamp = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}$`)
)

// checkJUnit is a fast, in-process consistency check of a JUnit document
// (the fuzz target runs it on every input). The schemas themselves are
// checked by xmllint against the real XSDs (junit_xmllint_test.go); this
// adds what no schema says: the counts agree, and what GitLab's reader
// wants besides:
//
//   - root <testsuites> (attributes name, tests, failures, errors,
//     disabled, time, no skipped; totals equal the sums over its suites),
//     children <testsuite> only;
//   - <testsuite> requires name, tests, failures, errors, time, timestamp
//     (xs:dateTime without zone, as Ant), hostname; skipped, id, package
//     are allowed; children in the order properties (at most one, with at
//     least one property), testcase*, system-out, system-err; the counts
//     match its testcases;
//   - <property> requires name and value;
//   - <testcase> requires name, classname and time (non-negative
//     xs:decimal); it holds at most one of skipped, error, failure, then
//     at most one system-out;
//   - <failure> and <error> require type and message (Ant requires type,
//     the strict GitLab/tmt schema message); <skipped> has no attribute.
func checkJUnit(data []byte) []string {
	root, err := parseXML(data)
	if err != nil {
		return []string{"not well-formed XML: " + err.Error()}
	}
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	allowed := func(n *xnode, names ...string) {
		for a := range n.attrs {
			ok := false
			for _, x := range names {
				ok = ok || a == x
			}
			if !ok {
				bad("%s: attribute %s is not in the schema", n.name, a)
			}
		}
	}
	required := func(n *xnode, names ...string) {
		for _, a := range names {
			if _, ok := n.attrs[a]; !ok {
				bad("%s: missing attribute %s", n.name, a)
			}
		}
	}
	count := func(n *xnode, a string) (int, bool) {
		v, ok := n.attrs[a]
		if !ok {
			return 0, false
		}
		i, err := strconv.Atoi(v)
		if err != nil || i < 0 {
			bad("%s: %s=%q is not a count", n.name, a, v)
			return 0, false
		}
		return i, true
	}
	decimal := func(n *xnode, a string) {
		if v, ok := n.attrs[a]; ok && (!xsDecimal.MatchString(v) || strings.HasPrefix(v, "-")) {
			bad("%s: %s=%q is not a decimal >= 0", n.name, a, v)
		}
	}
	if root.name != "testsuites" {
		return []string{"root element is <" + root.name + ">, want <testsuites>"}
	}
	allowed(root, "name", "tests", "failures", "errors", "disabled", "time")
	decimal(root, "time")
	totals := map[string]int{}
	for _, s := range root.children {
		if s.name != "testsuite" {
			bad("testsuites: unexpected child <%s>", s.name)
			continue
		}
		required(s, "name", "tests", "failures", "errors", "time", "timestamp", "hostname")
		allowed(s, "name", "tests", "failures", "errors", "skipped", "disabled", "time", "timestamp", "hostname", "id", "package", "file")
		if s.attrs["name"] == "" {
			bad("testsuite: empty name")
		}
		decimal(s, "time")
		if ts, ok := s.attrs["timestamp"]; ok && !xsTimestamp.MatchString(ts) {
			bad("testsuite %q: timestamp %q is not YYYY-MM-DDThh:mm:ss", s.attrs["name"], ts)
		}
		order := map[string]int{"properties": 0, "testcase": 1, "system-out": 2, "system-err": 3}
		seen := map[string]int{}
		last := -1
		got := map[string]int{}
		for _, c := range s.children {
			pos, ok := order[c.name]
			if !ok {
				bad("testsuite %q: unexpected child <%s>", s.attrs["name"], c.name)
				continue
			}
			if pos < last {
				bad("testsuite %q: <%s> out of order (want properties, testcase*, system-out, system-err)", s.attrs["name"], c.name)
			}
			last = pos
			seen[c.name]++
			switch c.name {
			case "properties":
				if len(c.children) == 0 {
					bad("testsuite %q: empty <properties>", s.attrs["name"])
				}
				for _, p := range c.children {
					if p.name != "property" {
						bad("properties: unexpected child <%s>", p.name)
						continue
					}
					required(p, "name", "value")
					allowed(p, "name", "value")
				}
			case "testcase":
				got["tests"]++
				required(c, "name", "classname", "time")
				allowed(c, "name", "classname", "time", "assertions", "status", "file", "line")
				decimal(c, "time")
				outcomes, outs := 0, 0
				for _, r := range c.children {
					switch r.name {
					case "failure", "error", "skipped":
						outcomes++
						if outs > 0 {
							bad("testcase %q: <%s> after <system-out>", c.attrs["name"], r.name)
						}
					case "system-out":
						outs++
					}
				}
				if outcomes > 1 {
					bad("testcase %q: more than one of skipped, error, failure", c.attrs["name"])
				}
				if outs > 1 {
					bad("testcase %q: more than one <system-out>", c.attrs["name"])
				}
				for _, r := range c.children {
					switch r.name {
					case "failure", "error":
						required(r, "type", "message")
						allowed(r, "type", "message")
						got[map[string]string{"failure": "failures", "error": "errors"}[r.name]]++
					case "skipped":
						allowed(r)
						got["skipped"]++
					case "system-out":
					default:
						bad("testcase %q: unexpected child <%s>", c.attrs["name"], r.name)
					}
				}
			}
		}
		if seen["properties"] > 1 {
			bad("testsuite %q: want at most one <properties>, got %d", s.attrs["name"], seen["properties"])
		}
		for _, el := range []string{"system-out", "system-err"} {
			if seen[el] != 1 {
				bad("testsuite %q: want exactly one <%s>, got %d", s.attrs["name"], el, seen[el])
			}
		}
		for _, a := range []string{"tests", "failures", "errors", "skipped"} {
			if v, ok := count(s, a); ok && v != got[a] {
				noun := map[string]string{"tests": "testcase", "failures": "failure", "errors": "error", "skipped": "skipped"}[a]
				bad("testsuite %q: %s=%d but %d %s element(s)", s.attrs["name"], a, v, got[a], noun)
			}
			totals[a] += got[a]
		}
	}
	if _, ok := root.attrs["skipped"]; ok {
		bad("testsuites: attribute skipped is not in junit-10.xsd or junit-4.xsd")
	}
	for _, a := range []string{"tests", "failures", "errors"} {
		if v, ok := count(root, a); ok && v != totals[a] {
			bad("testsuites: %s=%d but its suites sum to %d", a, v, totals[a])
		}
	}
	return problems
}

// FuzzJUnit: whatever the case ids, check details, error messages, gate
// expressions and warnings hold, the JUnit document is well-formed and
// keeps the schema.
func FuzzJUnit(f *testing.F) {
	f.Add("q1", `missing "sha-256"`, "timeout", "pass_rate >= 0.8", "warn & <x>")
	f.Add("a]]>b", "\x00\x01\ufffe", "\r\n", "\"'", "")
	f.Add("", "", "", "", "\xff\xfe")
	f.Fuzz(func(t *testing.T, id, detail, msg, expr, warning string) {
		run := ciRun()
		run.Cases[1].ID = id
		run.Cases[3].Checks[0].Detail = detail
		run.Cases[7].Error.Message = msg
		run.Gates[1].Expr = expr
		run.Warnings = []string{warning}
		run.Suite.Name = id
		var b bytes.Buffer
		if err := JUnit(&b, run); err != nil {
			t.Fatal(err)
		}
		if problems := checkJUnit(b.Bytes()); len(problems) > 0 {
			t.Fatalf("schema problems: %v\n%s", problems, b.String())
		}
	})
}

// TestJUnitCasePositions pins where a case's position in the suite goes:
// no file or line attribute (Ant's junit-4.xsd allows
// neither), and "at FILE:LINE" as the last line of a failure or error,
// where stack-trace readers look. A case without a position, or with one
// that is not "file:line", has no such line.
func TestJUnitCasePositions(t *testing.T) {
	r := ciRun()
	r.Cases[0].Source = "evals/kb.yaml:12" // passes: no text to carry it
	r.Cases[3].Source = "evals/kb.yaml:12"
	r.Cases[4].Source = `C:\evals\a"<&>.yaml:7`
	r.Cases[5].Source = "kb.yaml"
	r.Cases[7].Source = "kb.yaml:0"
	var b bytes.Buffer
	if err := JUnit(&b, r); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		`<testcase name="q1 (trial 0)" classname="kb" time="0.120"/>`,
		"metrics: ndcg@10=0.3\nat evals/kb.yaml:12\n</failure>",
		"metrics: ndcg@10=0\nat C:\\evals\\a\"&lt;&amp;&gt;.yaml:7\n</failure>",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("JUnit lacks %q\n%s", want, out)
		}
	}
	if n := strings.Count(out, "\nat "); n != 2 {
		t.Errorf("%d positions, want 2 (the two failing cases with a file:line source)\n%s", n, out)
	}
	if strings.Contains(out, " file=") || strings.Contains(out, " line=") {
		t.Errorf("a testcase has a file or line attribute (junit-4.xsd allows neither)\n%s", out)
	}
}
