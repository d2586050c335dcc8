package report

import (
	"bytes"
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
