package report

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/gate"
)

// GateDocument is the assay.gate/v1 document `assay gate --json` writes:
// the run checked, every gate and floor result, and whether all held.
// Pass is false for an incomplete run and for gates that measure nothing
// (Errors), as the exit status is.
type GateDocument struct {
	Schema   string             `json:"schema"`
	RunID    string             `json:"run_id"`
	Suite    string             `json:"suite"`
	Status   assay.RunStatus    `json:"status"`
	Pass     bool               `json:"pass"`
	Results  []assay.GateResult `json:"results"`
	Warnings []string           `json:"warnings"`
	Errors   []string           `json:"errors"`
}

// GateJSON writes the assay.gate/v1 document of a verdict on run.
func GateJSON(w io.Writer, run *assay.Run, v gate.Verdict) error {
	doc := GateDocument{
		Schema: "assay.gate/v1", RunID: run.RunID, Suite: run.Suite.Name, Status: run.Status,
		Pass:    v.Pass && len(v.Errors) == 0 && run.Status == assay.StatusComplete,
		Results: v.Results, Warnings: v.Warnings, Errors: v.Errors,
	}
	if doc.Results == nil {
		doc.Results = []assay.GateResult{}
	}
	if doc.Warnings == nil {
		doc.Warnings = []string{}
	}
	if doc.Errors == nil {
		doc.Errors = []string{}
	}
	return writeIndented(w, doc)
}

// A Finding is one lint finding as the lint outputs show it: where
// ("file:line", "file:line:col" or "file"), its severity ("error",
// "warning" or "note") and what it says. Callers convert their findings
// (a suite.Finding converts with Finding(f)).
type Finding struct {
	Source   string `json:"source"`
	Severity string `json:"severity"`
	Message  string `json:"message"`
}

// String is "file:line: severity: message", the form `assay lint` prints.
func (f Finding) String() string {
	return f.Source + ": " + f.Severity + ": " + f.Message
}

// The severities a Finding counts: a note is neither.
const (
	severityError   = "error"
	severityWarning = "warning"
)

// LintFinding is a lint finding with its source split into file, line and
// column (0 when the source does not give them).
type LintFinding struct {
	Finding
	File string `json:"file"`
	Line int    `json:"line,omitempty"`
	Col  int    `json:"col,omitempty"`
}

// LintDocument is the assay.lint/v1 document `assay lint --json` writes.
type LintDocument struct {
	Schema   string        `json:"schema"`
	Suite    string        `json:"suite"`
	Cases    int           `json:"cases"`
	Errors   int           `json:"errors"`
	Warnings int           `json:"warnings"`
	Findings []LintFinding `json:"findings"`
}

// LintJSON writes the assay.lint/v1 document of a lint of the suite at
// path (n cases).
func LintJSON(w io.Writer, path string, n int, findings []Finding) error {
	doc := LintDocument{Schema: "assay.lint/v1", Suite: path, Cases: n, Findings: []LintFinding{}}
	for _, f := range findings {
		doc.Findings = append(doc.Findings, SplitFinding(f))
		switch f.Severity {
		case severityError:
			doc.Errors++
		case severityWarning:
			doc.Warnings++
		}
	}
	return writeIndented(w, doc)
}

// SplitFinding splits a finding's "file:line[:col]" source.
func SplitFinding(f Finding) LintFinding {
	lf := LintFinding{Finding: f, File: f.Source}
	var nums []int
	rest := f.Source
	for len(nums) < 2 {
		i := strings.LastIndexByte(rest, ':')
		if i < 0 {
			break
		}
		n, err := strconv.Atoi(rest[i+1:])
		if err != nil || n < 0 {
			break
		}
		nums = append([]int{n}, nums...)
		rest = rest[:i]
	}
	lf.File = rest
	if len(nums) > 0 {
		lf.Line = nums[0]
	}
	if len(nums) > 1 {
		lf.Col = nums[1]
	}
	return lf
}

// LintGitHub writes the findings as GitHub Actions workflow commands, one
// a line: "::error file=F,line=L,col=C::MESSAGE" for errors, ::warning
// for warnings and ::notice for notes, so that each lands on its suite
// line in a pull request. Values are escaped as the runner expects (%, CR
// and LF in the message; also : and , in the properties).
func LintGitHub(w io.Writer, findings []Finding) error {
	for _, f := range findings {
		lf := SplitFinding(f)
		level := "notice"
		switch f.Severity {
		case severityError:
			level = "error"
		case severityWarning:
			level = "warning"
		}
		props := "file=" + ghProperty(lf.File)
		if lf.Line > 0 {
			props += ",line=" + strconv.Itoa(lf.Line)
		}
		if lf.Col > 0 {
			props += ",col=" + strconv.Itoa(lf.Col)
		}
		if _, err := fmt.Fprintf(w, "::%s %s::%s\n", level, props, ghData(Escape(f.Message))); err != nil {
			return err
		}
	}
	return nil
}

func ghData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

func ghProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(Escape(s))
}

func writeIndented(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// CodeClimateIssue is one finding of a GitLab Code Quality report (the
// Code Climate issue subset GitLab reads).
type CodeClimateIssue struct {
	Description string              `json:"description"`
	CheckName   string              `json:"check_name"`
	Fingerprint string              `json:"fingerprint"`
	Severity    string              `json:"severity"`
	Location    CodeClimateLocation `json:"location"`
}

// CodeClimateLocation is where a CodeClimateIssue is: the file, relative
// to the repository root for GitLab to place it, and its first line.
type CodeClimateLocation struct {
	Path  string `json:"path"`
	Lines struct {
		Begin int `json:"begin"`
	} `json:"lines"`
}

// LintCodeClimate writes the findings as a GitLab Code Quality report: a
// JSON array (empty when there is no finding) of issues with the
// finding's message as description, check_name "assay-lint-SEVERITY",
// severity major for an error, minor for a warning and info for a note,
// the file and line of its source (line 1 when the source has none), and
// a fingerprint that stays the same while the file, severity and message
// do, so that a finding that only moved to another line is not new to
// GitLab. Identical findings in one file get distinct fingerprints by
// their order.
func LintCodeClimate(w io.Writer, findings []Finding) error {
	issues := make([]CodeClimateIssue, 0, len(findings))
	seen := map[string]int{}
	for _, f := range findings {
		lf := SplitFinding(f)
		sev := "info"
		switch f.Severity {
		case severityError:
			sev = "major"
		case severityWarning:
			sev = "minor"
		}
		key := lf.File + "\x00" + f.Severity + "\x00" + f.Message
		n := seen[key]
		seen[key] = n + 1
		sum := sha256.Sum256([]byte(fmt.Sprintf("%s\x00%d", key, n)))
		is := CodeClimateIssue{
			Description: f.Message, CheckName: "assay-lint-" + f.Severity,
			Fingerprint: hex.EncodeToString(sum[:16]), Severity: sev,
		}
		is.Location.Path = lf.File
		is.Location.Lines.Begin = max(lf.Line, 1)
		issues = append(issues, is)
	}
	return writeIndented(w, issues)
}

// LintFindings writes the findings on w in a format: "text", one
// "file:line: severity: message" line each (as lint prints them),
// "github" (LintGitHub) or "codeclimate" (LintCodeClimate).
func LintFindings(w io.Writer, format string, findings []Finding) error {
	switch format {
	case "github":
		return LintGitHub(w, findings)
	case "codeclimate":
		return LintCodeClimate(w, findings)
	}
	for _, f := range findings {
		if _, err := fmt.Fprintln(w, EscapeLines(f.String())); err != nil {
			return err
		}
	}
	return nil
}

// LintSummary is lint's closing line, "PATH: N cases, E errors, W
// warnings" ("no errors" for none), with the number of errors.
func LintSummary(path string, n int, findings []Finding) (string, int) {
	errs, warns := 0, 0
	for _, f := range findings {
		switch f.Severity {
		case severityError:
			errs++
		case severityWarning:
			warns++
		}
	}
	return fmt.Sprintf("%s: %d %s, %s, %s", path, n, plural(n, "case", "cases"),
		lintCount(errs, "error", "errors"), lintCount(warns, "warning", "warnings")), errs
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func lintCount(n int, one, many string) string {
	if n == 0 {
		return "no " + many
	}
	return fmt.Sprintf("%d %s", n, plural(n, one, many))
}
