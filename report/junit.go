package report

import (
	"bufio"
	"encoding/xml"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/gate"
)

// JUnit writes the run as JUnit XML: one <testcase> per case and trial in a
// <testsuite> named for the suite; when the run has metrics, a <testsuite>
// "<suite> metrics" with one passing <testcase> per metric, its mean and n
// in <system-out>; and, when the run recorded gates, a <testsuite>
// "<suite> gates" with one <testcase> per gate.
//
// The mapping:
//
//   - a passing case is an empty <testcase>;
//   - a failing case carries <failure type="KIND" message="KIND: FACT"> with
//     every failing check ("answer_includes: missing \"sha-256\"") in its body;
//   - a case whose target failed carries <error type="CLASS" message=...>;
//   - a case that states no expectation (judgments only) was measured, not
//     graded: JUnit has no such outcome, and thousands of <skipped> would
//     say nothing ran, so it is a testcase without outcome whose
//     <system-out> says "measured, not graded" with its metric values (it
//     still stays out of pass_rate; the metrics suite carries the means);
//   - time is the observation latency in seconds; properties carry the run
//     id, status, target, pass rate and metric means; warnings go to the
//     suite's <system-out>. An incomplete run adds an errored testcase
//     "run complete" to the gates suite.
//
// The output validates against Jenkins' xunit junit-10.xsd and the Ant
// junit-4.xsd (xmllint --schema, in the tests) and keeps what GitLab's
// reader wants: every testsuite has name, tests, failures, errors,
// skipped, time, timestamp and hostname, and its children in the order
// properties (left out when empty: junit-4.xsd wants at least one
// property), testcase*, system-out, system-err; <testsuites> has no
// skipped count (neither schema allows one); every testcase has name,
// classname and time; failure and error have type and message; <skipped>
// is text only.
//
// A case's position in the suite (CaseResult.Source) is carried in a way
// both schemas accept: junit-10.xsd allows file and line attributes on a
// testcase, Ant's junit-4.xsd allows neither, so the testcase has none and
// the failure or error text ends with "at FILE:LINE", where stack-trace
// readers find it. Annotations on the suite line come from `assay run`
// itself under GitHub Actions (RunGitHub), which needs no JUnit reader.
//
// The cases are read through run.EachCase twice, once for the counts the
// <testsuite> start tag carries and once to write each <testcase> as it
// comes, so JUnit holds one case at a time.
func JUnit(w io.Writer, run *assay.Run) error {
	doc, err := junitDoc(run)
	if err != nil {
		return err
	}
	return writeJUnit(w, doc)
}

// JUnitMatrix writes the runs of a variant matrix as one JUnit document:
// each run's suites as JUnit writes them, named "SUITE [VARIANT]", and a
// last suite "SUITE orderings" with one testcase per ordering result.
func JUnitMatrix(w io.Writer, runs []*assay.Run, orderings gate.Verdict) error {
	var doc junitSuites
	name := "assay"
	for _, run := range runs {
		d, err := junitDoc(run)
		if err != nil {
			return err
		}
		variant := gate.VariantName(run.Variant)
		for _, s := range d.Suites {
			if variant != "" {
				// Suite and class names carry the variant, so readers that
				// key testcases by classname and name keep them apart.
				base := nonEmpty(run.Suite.Name, "assay")
				tagged := base + " [" + variant + "]"
				s.Name = strings.Replace(s.Name, base, tagged, 1)
				for i := range s.Cases {
					s.Cases[i].Classname = strings.Replace(s.Cases[i].Classname, base, tagged, 1)
				}
				if each := s.each; each != nil {
					s.each = func(yield func(junitCase) error) error {
						return each(func(tc junitCase) error {
							tc.Classname = strings.Replace(tc.Classname, base, tagged, 1)
							return yield(tc)
						})
					}
				}
			}
			s.ID = len(doc.Suites)
			doc.Suites = append(doc.Suites, s)
		}
		name = d.Name
	}
	if len(orderings.Results) > 0 {
		suiteName := "assay"
		stamp := time.Unix(0, 0).UTC().Format("2006-01-02T15:04:05")
		if len(runs) > 0 {
			suiteName = nonEmpty(runs[0].Suite.Name, "assay")
			if !runs[0].StartedAt.IsZero() {
				stamp = runs[0].StartedAt.UTC().Format("2006-01-02T15:04:05")
			}
		}
		o := junitSuite{Name: suiteName + " orderings", Timestamp: stamp, Hostname: "assay", ID: len(doc.Suites), Package: suiteName, Time: "0.000"}
		for _, g := range orderings.Results {
			tc := junitCase{Name: g.Expr, Classname: suiteName + ".orderings", Time: "0.000"}
			if !g.Pass {
				tc.Failure = &junitMessage{Type: "ordering", Message: gateFact(g), Body: gateBody(g)}
				o.Failures++
			}
			o.Cases = append(o.Cases, tc)
		}
		o.Tests = len(o.Cases)
		doc.Suites = append(doc.Suites, o)
	}
	doc.Name = name
	for _, s := range doc.Suites {
		doc.Tests += s.Tests
		doc.Failures += s.Failures
		doc.Errors += s.Errors
		doc.Skipped += s.Skipped
	}
	doc.Time = "0.000"
	if len(doc.Suites) > 0 {
		var total float64
		for _, s := range doc.Suites {
			var t float64
			fmt.Sscanf(s.Time, "%g", &t)
			total += t
		}
		doc.Time = seconds(total)
	}
	return writeJUnit(w, doc)
}

func writeJUnit(w io.Writer, doc junitSuites) error {
	bw := bufio.NewWriter(w)
	p := &printer{w: bw, lines: true}
	p.f("%s", xml.Header)
	// <testsuites> carries no skipped count: neither junit-10.xsd nor
	// junit-4.xsd allows one there (each <testsuite> has its own).
	p.f("<testsuites name=\"%s\" tests=\"%d\" failures=\"%d\" errors=\"%d\" time=\"%s\">\n",
		xmlAttr(doc.Name), doc.Tests, doc.Failures, doc.Errors, doc.Time)
	for _, s := range doc.Suites {
		p.f("  <testsuite name=\"%s\" tests=\"%d\" failures=\"%d\" errors=\"%d\" skipped=\"%d\" time=\"%s\" timestamp=\"%s\" hostname=\"%s\" id=\"%d\" package=\"%s\">\n",
			xmlAttr(s.Name), s.Tests, s.Failures, s.Errors, s.Skipped, s.Time, s.Timestamp, xmlAttr(s.Hostname), s.ID, xmlAttr(s.Package))
		// junit-4.xsd wants at least one <property> in a <properties>:
		// without properties the element is left out.
		if len(s.Properties) > 0 {
			p.f("    <properties>\n")
			for _, pr := range s.Properties {
				p.f("      <property name=\"%s\" value=\"%s\"/>\n", xmlAttr(pr.Name), xmlAttr(pr.Value))
			}
			p.f("    </properties>\n")
		}
		for _, c := range s.Cases {
			writeJUnitCase(p, c)
		}
		if s.each != nil {
			err := s.each(func(c junitCase) error {
				writeJUnitCase(p, c)
				return p.err
			})
			if err != nil {
				return err
			}
		}
		for _, el := range []struct {
			name string
			body string
		}{{"system-out", s.SystemOut.Body}, {"system-err", s.SystemErr.Body}} {
			if el.body == "" {
				p.f("    <%s/>\n", el.name)
			} else {
				p.f("    <%s>%s</%s>\n", el.name, xmlText(el.body), el.name)
			}
		}
		p.f("  </testsuite>\n")
	}
	p.f("</testsuites>\n")
	if p.err != nil {
		return p.err
	}
	return bw.Flush()
}

func writeJUnitCase(p *printer, c junitCase) {
	p.f("    <testcase name=\"%s\" classname=\"%s\" time=\"%s\"", xmlAttr(c.Name), xmlAttr(c.Classname), c.Time)
	var el string
	var m *junitMessage
	switch {
	case c.Failure != nil:
		el, m = "failure", c.Failure
	case c.Error != nil:
		el, m = "error", c.Error
	case c.Skipped != nil:
		el, m = "skipped", c.Skipped
	}
	if m == nil && c.SystemOut == "" {
		p.f("/>\n")
		return
	}
	p.f(">\n")
	switch {
	case m != nil && el == "skipped":
		// junit-4.xsd's <skipped> is text only (no message attribute).
		p.f("      <skipped>%s</skipped>\n", xmlText(m.Message))
	case m != nil:
		p.f("      <%s message=\"%s\"", el, xmlAttr(m.Message))
		if m.Type != "" {
			p.f(" type=\"%s\"", xmlAttr(m.Type))
		}
		if m.Body == "" {
			p.f("/>\n")
		} else {
			p.f(">%s</%s>\n", xmlText(m.Body), el)
		}
	}
	if c.SystemOut != "" {
		p.f("      <system-out>%s</system-out>\n", xmlText(c.SystemOut))
	}
	p.f("    </testcase>\n")
}

// xmlText escapes character data: &, < and > become entities, characters
// XML 1.0 cannot carry are shown as Escape shows them (\x1b); newlines and quotes stay readable.
func xmlText(s string) string {
	return xmlEscape(s, false)
}

// xmlAttr escapes an attribute value (quotes and whitespace controls too).
func xmlAttr(s string) string {
	return xmlEscape(s, true)
}

func xmlEscape(s string, attr bool) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '&':
			b.WriteString("&amp;")
		case r == '<':
			b.WriteString("&lt;")
		case r == '>':
			b.WriteString("&gt;")
		case attr && r == '"':
			b.WriteString("&quot;")
		case attr && r == '\n':
			b.WriteString("&#10;")
		case attr && r == '\r':
			b.WriteString("&#13;")
		case attr && r == '\t':
			b.WriteString("&#9;")
		case !attr && r == '\r':
			b.WriteString("&#13;")
		case !xmlChar(r):
			b.WriteString(quoteRune(r)) // shown as Escape shows it
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// xmlChar reports whether r may appear in an XML 1.0 document.
func xmlChar(r rune) bool {
	return r == 0x09 || r == 0x0A || r == 0x0D ||
		(r >= 0x20 && r <= 0xD7FF) || (r >= 0xE000 && r <= 0xFFFD) || (r >= 0x10000 && r <= 0x10FFFF)
}

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr"`
	Timestamp  string          `xml:"timestamp,attr"`
	Hostname   string          `xml:"hostname,attr"`
	ID         int             `xml:"id,attr"`
	Package    string          `xml:"package,attr"`
	Properties []junitProperty `xml:"properties>property"`
	Cases      []junitCase     `xml:"testcase"`
	SystemOut  junitText       `xml:"system-out"`
	SystemErr  junitText       `xml:"system-err"`
	// each, when set, yields the testcases that follow Cases, one at a
	// time as they are written (a run's cases, read through EachCase).
	each func(yield func(junitCase) error) error
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Skipped   *junitMessage `xml:"skipped,omitempty"`
	Error     *junitMessage `xml:"error,omitempty"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Body    string `xml:",chardata"`
}

type junitText struct {
	Body string `xml:",chardata"`
}

// junitDoc is the JUnit document of run. The case suite's counts come from
// a first pass over run.EachCase; its testcases are yielded by a second
// pass when the document is written.
func junitDoc(run *assay.Run) (junitSuites, error) {
	name := run.Suite.Name
	if name == "" {
		name = "assay"
	}
	stamp := ""
	if !run.StartedAt.IsZero() {
		stamp = run.StartedAt.UTC().Format("2006-01-02T15:04:05")
	} else {
		stamp = time.Unix(0, 0).UTC().Format("2006-01-02T15:04:05")
	}
	elapsed := 0.0
	if !run.StartedAt.IsZero() && run.FinishedAt.After(run.StartedAt) {
		elapsed = run.FinishedAt.Sub(run.StartedAt).Seconds()
	}

	cases := junitSuite{Name: name, Timestamp: stamp, Hostname: "assay", ID: 0, Package: name, Time: seconds(elapsed)}
	cases.Properties = junitProperties(run)
	multi := run.Options.Trials > 1
	err := run.EachCase(func(c assay.CaseResult) error {
		if c.Trial > 0 {
			multi = true
		}
		cases.Tests++
		switch {
		case c.Error != nil:
			cases.Errors++
		case c.Pass == nil:
		case !*c.Pass:
			cases.Failures++
		}
		return nil
	})
	if err != nil {
		return junitSuites{}, err
	}
	cases.each = func(yield func(junitCase) error) error {
		return run.EachCase(func(c assay.CaseResult) error {
			return yield(junitCaseOf(c, name, multi))
		})
	}
	if len(run.Warnings) > 0 {
		cases.SystemOut.Body = "warning: " + strings.Join(run.Warnings, "\nwarning: ") + "\n"
	}
	doc := junitSuites{Name: "assay " + name, Time: cases.Time, Suites: []junitSuite{cases}}

	if ms := MetricOrder(run); len(ms) > 0 {
		metrics := junitSuite{Name: name + " metrics", Timestamp: stamp, Hostname: "assay", ID: len(doc.Suites), Package: name, Time: "0.000"}
		for _, n := range ms {
			m := run.Summary.Metrics[n]
			metrics.Cases = append(metrics.Cases, junitCase{Name: n, Classname: name + ".metrics", Time: "0.000",
				SystemOut: fmt.Sprintf("%s = %s, mean over %d judged %s\n", n, num(m.Mean), m.N, map[bool]string{true: "case", false: "cases"}[m.N == 1])})
		}
		metrics.Tests = len(metrics.Cases)
		doc.Suites = append(doc.Suites, metrics)
	}
	if len(run.Gates) > 0 || run.Status == assay.StatusIncomplete {
		gates := junitSuite{Name: name + " gates", Timestamp: stamp, Hostname: "assay", ID: len(doc.Suites), Package: name, Time: "0.000"}
		if run.Status == assay.StatusIncomplete {
			gates.Cases = append(gates.Cases, junitCase{Name: "run complete", Classname: name + ".gates", Time: "0.000",
				Error: &junitMessage{Type: "incomplete", Message: "the run is incomplete: not every case was observed, so it cannot pass"}})
			gates.Errors++
		}
		for _, g := range run.Gates {
			tc := junitCase{Name: g.Expr, Classname: name + ".gates", Time: "0.000"}
			if !g.Pass {
				tc.Failure = &junitMessage{Type: "gate", Message: gateFact(g), Body: gateBody(g)}
				gates.Failures++
			}
			gates.Cases = append(gates.Cases, tc)
		}
		gates.Tests = len(gates.Cases)
		doc.Suites = append(doc.Suites, gates)
	}
	for _, s := range doc.Suites {
		doc.Tests += s.Tests
		doc.Failures += s.Failures
		doc.Errors += s.Errors
		doc.Skipped += s.Skipped
	}
	return doc, nil
}

// junitCaseOf is the testcase of one case result in the suite name; multi
// names it with its trial.
func junitCaseOf(c assay.CaseResult, name string, multi bool) junitCase {
	tc := junitCase{Name: c.ID, Classname: name, Time: "0.000"}
	if multi {
		tc.Name = fmt.Sprintf("%s (trial %d)", c.ID, c.Trial)
	}
	if c.LatencyMs != nil && *c.LatencyMs > 0 {
		tc.Time = seconds(*c.LatencyMs / 1000)
	}
	switch {
	case c.Error != nil:
		tc.Error = &junitMessage{
			Type:    string(c.Error.Class),
			Message: fmt.Sprintf("%s: %s", c.Error.Class, c.Error.Message),
			Body:    caseFacts(c),
		}
	case c.Pass == nil:
		// Judgments only: measured, not graded. JUnit has no such outcome;
		// the case ran and nothing of it failed, so it is a plain testcase
		// with its metric values, not one of thousands of "skipped".
		tc.SystemOut = "measured, not graded (the case states judgments only)"
		if len(c.Metrics) > 0 {
			tc.SystemOut += "\nmetrics:"
			for _, k := range slices.Sorted(maps.Keys(c.Metrics)) {
				tc.SystemOut += " " + k + "=" + num(c.Metrics[k])
			}
		}
		tc.SystemOut += "\n"
	case !*c.Pass:
		kind, msg := firstFailure(c)
		tc.Failure = &junitMessage{Type: kind, Message: msg, Body: caseFacts(c)}
	}
	return tc
}

// splitSource splits "file:line" at its last colon; anything else (no
// position, a line that is not a positive number) is no position.
func splitSource(src string) (string, int) {
	i := strings.LastIndexByte(src, ':')
	if i <= 0 {
		return "", 0
	}
	n, err := strconv.Atoi(src[i+1:])
	if err != nil || n < 1 {
		return "", 0
	}
	return src[:i], n
}

func junitProperties(run *assay.Run) []junitProperty {
	props := []junitProperty{
		{"run_id", run.RunID},
		{"status", string(run.Status)},
	}
	if t := nonEmpty(run.Target.Spec, run.Target.Kind); t != "" {
		props = append(props, junitProperty{"target", t})
	}
	if run.Suite.Fingerprint != "" {
		props = append(props, junitProperty{"suite_fingerprint", run.Suite.Fingerprint})
	}
	if run.AssayVersion != "" {
		props = append(props, junitProperty{"assay_version", run.AssayVersion})
	}
	if run.Options.Trials > 1 {
		props = append(props, junitProperty{"trials", fmt.Sprint(run.Options.Trials)})
	}
	if run.Summary.PassRate != nil {
		props = append(props, junitProperty{"pass_rate", num(*run.Summary.PassRate)})
	}
	for _, n := range MetricOrder(run) {
		m := run.Summary.Metrics[n]
		props = append(props, junitProperty{n, fmt.Sprintf("%s (n=%d)", num(m.Mean), m.N)})
	}
	return props
}

// firstFailure is the type and message of a failing case: its first failing
// check, and how many more there are.
func firstFailure(c assay.CaseResult) (kind, msg string) {
	var failing []assay.Check
	for _, ch := range c.Checks {
		if !ch.Pass {
			failing = append(failing, ch)
		}
	}
	if len(failing) == 0 {
		return "fail", "the case failed"
	}
	kind = failing[0].Kind
	msg = checkFact(failing[0])
	if len(failing) > 1 {
		msg += fmt.Sprintf(" (and %d more)", len(failing)-1)
	}
	return kind, msg
}

func checkFact(ch assay.Check) string {
	if ch.Detail == "" {
		return ch.Kind + ": failed"
	}
	return ch.Kind + ": " + ch.Detail
}

// caseFacts is the body of a failure or error: every failing check, the
// case's tags and its metric values.
func caseFacts(c assay.CaseResult) string {
	var b strings.Builder
	if c.Error != nil {
		fmt.Fprintf(&b, "error %s: %s\n", c.Error.Class, c.Error.Message)
	}
	for _, ch := range c.Checks {
		if !ch.Pass && c.Error == nil {
			b.WriteString(checkFact(ch) + "\n")
		}
	}
	if len(c.Tags) > 0 {
		b.WriteString("tags:")
		for _, k := range slices.Sorted(maps.Keys(c.Tags)) {
			fmt.Fprintf(&b, " %s=%s", k, c.Tags[k])
		}
		b.WriteString("\n")
	}
	if len(c.Metrics) > 0 {
		b.WriteString("metrics:")
		for _, k := range slices.Sorted(maps.Keys(c.Metrics)) {
			fmt.Fprintf(&b, " %s=%s", k, num(c.Metrics[k]))
		}
		b.WriteString("\n")
	}
	if file, line := splitSource(c.Source); file != "" {
		fmt.Fprintf(&b, "at %s:%d\n", file, line)
	}
	return b.String()
}

// gateFact is the one-line statement of a failing gate.
func gateFact(g assay.GateResult) string {
	if g.Value == nil {
		return nonEmpty(g.Detail, "no value")
	}
	v, b := gate.FormatPair(*g.Value, g.Bound)
	s := fmt.Sprintf("value %s, bound %s %s", v, nonEmpty(g.Op, "?"), b)
	if g.Detail != "" {
		s += " (" + g.Detail + ")"
	}
	return s
}

func gateBody(g assay.GateResult) string {
	s := g.Expr + "\n" + gateFact(g) + "\n"
	if g.Source != "" {
		s += "source: " + g.Source + "\n"
	}
	return s
}

// seconds formats a duration in seconds as an xs:decimal with 3 decimals.
func seconds(s float64) string {
	if s < 0 {
		s = 0
	}
	return fmt.Sprintf("%.3f", s)
}
