package report

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestLintGitHub pins the annotations of lint --format github: the level
// by severity, file/line/col split from the source, and the runner's
// escaping of %, : and , in properties and of % in the message.
func TestLintGitHub(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	err := LintGitHub(&buf, []Finding{
		{Source: "suites/kb.yaml:12:7", Severity: "error", Message: "case \"a\": k must be >= 1, got 0"},
		{Source: "odd,name:x.yaml:3", Severity: "warning", Message: "100% leak"},
		{Source: "kb.yaml", Severity: "note", Message: "no corpus"},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := "::error file=suites/kb.yaml,line=12,col=7::case \"a\": k must be >= 1, got 0\n" +
		"::warning file=odd%2Cname%3Ax.yaml,line=3::100%25 leak\n" +
		"::notice file=kb.yaml::no corpus\n"
	if buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
	}
}

// TestLintCodeClimate pins the GitLab Code Quality report of lint --format
// codeclimate: severity by the finding's, path and line split from the
// source (line 1 without one), and fingerprints that ignore the line but
// tell apart identical findings in one file.
func TestLintCodeClimate(t *testing.T) {
	t.Parallel()
	findings := []Finding{
		{Source: "suites/kb.yaml:12:7", Severity: "error", Message: "case \"a\": k must be >= 1, got 0"},
		{Source: "suites/kb.yaml:30", Severity: "warning", Message: "case \"b\": leakage: \"x\" is in the query"},
		{Source: "suites/kb.yaml:31", Severity: "warning", Message: "case \"b\": leakage: \"x\" is in the query"},
		{Source: "suites/kb.yaml", Severity: "note", Message: "no corpus"},
	}
	var buf bytes.Buffer
	if err := LintCodeClimate(&buf, findings); err != nil {
		t.Fatal(err)
	}
	golden(t, "TestLintCodeClimate.golden.json", buf.Bytes())

	var issues []CodeClimateIssue
	if err := json.Unmarshal(buf.Bytes(), &issues); err != nil {
		t.Fatal(err)
	}
	fps := map[string]bool{}
	for _, is := range issues {
		fps[is.Fingerprint] = true
	}
	if len(fps) != len(findings) {
		t.Errorf("%d distinct fingerprints for %d findings", len(fps), len(findings))
	}
	// The same finding on another line keeps its fingerprint.
	moved := append([]Finding(nil), findings...)
	moved[0].Source = "suites/kb.yaml:40:7"
	buf.Reset()
	if err := LintCodeClimate(&buf, moved); err != nil {
		t.Fatal(err)
	}
	var again []CodeClimateIssue
	if err := json.Unmarshal(buf.Bytes(), &again); err != nil {
		t.Fatal(err)
	}
	if again[0].Fingerprint != issues[0].Fingerprint || again[0].Location.Lines.Begin != 40 {
		t.Errorf("moved finding: fingerprint %s line %d, want %s line 40", again[0].Fingerprint, again[0].Location.Lines.Begin, issues[0].Fingerprint)
	}

	// No finding is an empty array, not null.
	buf.Reset()
	if err := LintCodeClimate(&buf, nil); err != nil {
		t.Fatal(err)
	}
	if got := buf.String(); got != "[]\n" {
		t.Errorf("no findings: %q, want []", got)
	}
}
