package report

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/assay-eval/assay"
)

// CaseView is one case trial of a run, whole: what the suite asked (the
// query and the judgments, when the suite could be read again) and what
// the target did (the observation stored in cases.jsonl).
type CaseView struct {
	Result    assay.CaseResult
	Query     string
	Judgments map[string]int
	// Turns are the suite's turns of a conversation case (their queries
	// and judgments); nil for a case of one query, or when the suite could
	// not be read again.
	Turns []assay.Turn
	// SuiteNote says why Query and Judgments are missing (the suite file
	// moved or changed since the run); empty when they were found.
	SuiteNote string
}

// CaseDetails writes the trials of one case of the run runID, each whole
// (CaseDetail), a blank line between them; with a heading ("base"), a line
// "HEADING run RUNID" first.
func CaseDetails(w io.Writer, heading, runID string, views []CaseView) error {
	if heading != "" {
		if _, err := fmt.Fprintf(w, "%s run %s\n\n", heading, runID); err != nil {
			return err
		}
	}
	for i, v := range views {
		if i > 0 {
			if _, err := fmt.Fprintln(w); err != nil {
				return err
			}
		}
		if err := CaseDetail(w, v); err != nil {
			return err
		}
	}
	return nil
}

// CaseDetail writes one case trial whole, for `assay runs show REF --case
// ID`: query, answer, the ranking with each document's judgment grade
// ("-" unjudged), the citations (each marked surfaced or not), the tool
// calls, the checks, the metrics and the spans. Every value is escaped.
func CaseDetail(w io.Writer, v CaseView) error {
	ew := &errWriter{w: w}
	r := v.Result
	status := resultStatus(r)
	if len(r.Turns) > 0 {
		return conversationDetail(ew, v, status)
	}
	ew.printf("case %s  trial %d  %s\n", Escape(r.ID), r.Trial, Escape(status))
	if v.SuiteNote != "" {
		ew.printf("query      (%s)\n", Escape(v.SuiteNote))
	} else {
		ew.printf("query      %s\n", Escape(v.Query))
	}
	if len(r.Tags) > 0 {
		ew.printf("tags       %s\n", Escape(tagsText(r.Tags)))
	}
	if r.LatencyMs != nil {
		ew.printf("latency    %s ms\n", fmtFloat(*r.LatencyMs))
	}
	if o := r.Observation; o != nil && o.Cached {
		orig := "unknown"
		if o.OriginalLatencyMs != nil {
			orig = fmtFloat(*o.OriginalLatencyMs) + " ms"
		}
		ew.printf("cached     from the response cache, not the system (original latency %s)\n", orig)
	}
	o := r.Observation
	if o == nil {
		ew.printf("\n(the run kept no observation for this case)\n")
	} else {
		ew.printf("refused    %s\n", refusedText(o.Refused, r.Refused))
		if o.Outcome != "" {
			ew.printf("outcome    %s\n", Escape(o.Outcome))
		}
		if o.ApprovalPending {
			ew.printf("approval   pending\n")
		}
		ew.printf("\nanswer\n")
		if o.Answer == "" {
			ew.printf("  (none)\n")
		}
		for _, line := range strings.Split(strings.TrimRight(o.Answer, "\n"), "\n") {
			if o.Answer != "" {
				ew.printf("  %s\n", Escape(line))
			}
		}
		ew.printf("\nranking (%d)\n", len(o.Retrieved))
		for i, h := range o.Retrieved {
			grade := "-"
			if g, ok := v.Judgments[h.ID]; ok {
				grade = fmt.Sprint(g)
			}
			ew.printf("  %2d. %-6s %s  score %s%s\n", i+1, "rel "+grade, Escape(h.ID), fmtFloat(h.Score), titlePath(h.Title, h.Path))
		}
		if missed := unretrieved(v.Judgments, o.Retrieved); len(missed) > 0 {
			ew.printf("  judged relevant, not retrieved: %s\n", Escape(strings.Join(missed, ", ")))
		}
		ew.printf("\ncitations (%d)\n", len(o.Citations))
		for _, c := range o.Citations {
			mark := "unsurfaced"
			if surfaced(c, o.Retrieved) {
				mark = "surfaced"
			}
			name := citationName(c)
			title, path := c.Title, c.Path
			if name == path {
				path = ""
			}
			if name == title {
				title = ""
			}
			ew.printf("  %-10s %s%s\n", mark, Escape(name), titlePath(title, path))
		}
		ew.printf("\ntool calls (%d)\n", len(o.Tools))
		for _, t := range o.Tools {
			line := t.Name
			if len(t.Args) > 0 {
				line += " " + string(t.Args)
			}
			if t.Error != "" {
				line += "  error: " + t.Error
			}
			ew.printf("  %s\n", Escape(line))
		}
		if len(o.Spans) > 0 {
			ew.printf("\nspans (%d)\n", len(o.Spans))
			for _, s := range o.Spans {
				ew.printf("  %-16s %s – %s ms\n", Escape(s.Name), fmtFloat(s.StartMs), fmtFloat(s.EndMs))
			}
		}
	}
	ew.printf("\nchecks (%d)\n", len(r.Checks))
	for _, c := range r.Checks {
		ew.printf("  %s %s\n", checkMark(c), Escape(checkLine(c)))
	}
	if len(r.Nuggets) > 0 {
		ew.printf("\nnuggets (%d)\n", len(r.Nuggets))
		for _, n := range r.Nuggets {
			ew.printf("  %s\n", Escape(NuggetLine(n)))
		}
	}
	if len(r.Metrics) > 0 {
		ew.printf("\nmetrics\n")
		for _, k := range slices.Sorted(maps.Keys(r.Metrics)) {
			line := fmt.Sprintf("  %-12s %.4f", Escape(k), r.Metrics[k])
			if u, ok := r.Upper[k]; ok {
				line += fmt.Sprintf("  (%.4f with the unjudged documents relevant)", u)
			}
			ew.printf("%s\n", line)
		}
	}
	if HasUnjudged(r) {
		ew.printf("\nunjudged share of the top k\n")
		for _, k := range UnjudgedCutoffs(r.Unjudged) {
			ew.printf("  %-12s %.4f\n", Escape(k), r.Unjudged[k])
		}
	}
	return ew.err
}

// UnjudgedCutoffs are the names of unj, "unj@5" before "unj@10": by
// cutoff, increasing.
func UnjudgedCutoffs(unj map[string]float64) []string {
	return slices.SortedFunc(maps.Keys(unj), func(a, b string) int {
		if len(a) != len(b) {
			return len(a) - len(b)
		}
		return strings.Compare(a, b)
	})
}

// HasUnjudged reports whether a case's ranking has an unjudged document in
// the top k of some cutoff (CaseResult.Unjudged above 0): the case detail
// and the UI's case page then show each unj@k. A fully judged top k shows
// nothing (the JSON records the zeros).
func HasUnjudged(r assay.CaseResult) bool {
	for _, v := range r.Unjudged {
		if v > 0 {
			return true
		}
	}
	return false
}

// conversationDetail writes a conversation case trial: each turn (its
// message, answer, ranking, tool calls, checks and metrics), then the
// conversation's own checks and its metrics (the means over its turns).
func conversationDetail(ew *errWriter, v CaseView, status string) error {
	r := v.Result
	if r.FailedTurn > 0 && r.Error == nil {
		status += fmt.Sprintf(" at turn %d", r.FailedTurn)
	}
	ew.printf("case %s  trial %d  %s\n", Escape(r.ID), r.Trial, Escape(status))
	ew.printf("turns      %d\n", len(r.Turns))
	if v.SuiteNote != "" {
		ew.printf("query      (%s)\n", Escape(v.SuiteNote))
	}
	if len(r.Tags) > 0 {
		ew.printf("tags       %s\n", Escape(tagsText(r.Tags)))
	}
	if r.LatencyMs != nil {
		ew.printf("latency    %s ms (the turns together)\n", fmtFloat(*r.LatencyMs))
	}
	for i, t := range r.Turns {
		var st *assay.Turn
		if i < len(v.Turns) {
			st = &v.Turns[i]
		}
		tstatus := resultStatus(t)
		ew.printf("\nturn %d  %s", t.Turn, Escape(tstatus))
		if t.LatencyMs != nil {
			ew.printf("  latency %s ms", fmtFloat(*t.LatencyMs))
		}
		ew.printf("\n")
		if st != nil {
			ew.printf("  user     %s\n", Escape(st.Query))
		}
		o := t.Observation
		if o == nil {
			ew.printf("  (the run kept no observation for this turn)\n")
		} else {
			if o.Error == nil {
				answer := strings.TrimRight(o.Answer, "\n")
				if answer == "" {
					answer = "(none)"
				}
				for j, line := range strings.Split(answer, "\n") {
					label := "answer"
					if j > 0 {
						label = ""
					}
					ew.printf("  %-8s %s\n", label, Escape(line))
				}
			}
			if len(o.Retrieved) > 0 {
				parts := make([]string, len(o.Retrieved))
				for j, h := range o.Retrieved {
					grade := "-"
					if st != nil {
						if g, ok := st.Judgments[h.ID]; ok {
							grade = fmt.Sprint(g)
						}
					}
					parts[j] = h.ID + " (rel " + grade + ")"
				}
				ew.printf("  ranking  %s\n", Escape(strings.Join(parts, ", ")))
			}
			for _, c := range o.Tools {
				line := c.Name
				if len(c.Args) > 0 {
					line += " " + string(c.Args)
				}
				if c.Error != "" {
					line += "  error: " + c.Error
				}
				ew.printf("  tool     %s\n", Escape(line))
			}
		}
		for _, c := range t.Checks {
			ew.printf("  %s %s\n", checkMark(c), Escape(checkLine(c)))
		}
		for _, k := range slices.Sorted(maps.Keys(t.Metrics)) {
			ew.printf("  %-12s %.4f\n", Escape(k), t.Metrics[k])
		}
	}
	ew.printf("\nconversation checks (%d)\n", len(r.Checks))
	for _, c := range r.Checks {
		ew.printf("  %s %s\n", checkMark(c), Escape(checkLine(c)))
	}
	if len(r.Metrics) > 0 {
		ew.printf("\nmetrics (means over the turns that have them)\n")
		for _, k := range slices.Sorted(maps.Keys(r.Metrics)) {
			ew.printf("  %-12s %.4f\n", Escape(k), r.Metrics[k])
		}
	}
	return ew.err
}

// resultStatus is a result's (or a turn's) status as the case detail
// prints it: pass, fail, not graded, or its error.
func resultStatus(r assay.CaseResult) string {
	switch {
	case r.Error != nil:
		return "error " + string(r.Error.Class) + ": " + r.Error.Message
	case r.Passed():
		return "pass"
	case r.Graded():
		return "fail"
	}
	return "not graded"
}

// tagsText is a result's tags as k=v pairs by key.
func tagsText(tags map[string]string) string {
	keys := slices.Sorted(maps.Keys(tags))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + tags[k]
	}
	return strings.Join(parts, " ")
}

func checkMark(c assay.Check) string {
	if c.Pass {
		return "✓"
	}
	return "✗"
}

func checkLine(c assay.Check) string {
	if c.Detail != "" {
		return c.Kind + ": " + c.Detail
	}
	return c.Kind
}

func refusedText(reported *bool, graded bool) string {
	if reported != nil {
		return fmt.Sprintf("%t (reported by the target)", *reported)
	}
	return fmt.Sprintf("%t (by the refusal markers)", graded)
}

func titlePath(title, path string) string {
	var parts []string
	if title != "" {
		parts = append(parts, "title "+quoteEsc(title))
	}
	if path != "" {
		parts = append(parts, "path "+Escape(path))
	}
	if len(parts) == 0 {
		return ""
	}
	return "  " + strings.Join(parts, "  ")
}

func quoteEsc(s string) string { return `"` + Escape(s) + `"` }

func citationName(c assay.Citation) string {
	switch {
	case c.ID != "":
		return c.ID
	case c.Path != "":
		return c.Path
	}
	return c.Title
}

// surfaced is the grader's rule (docs/expectations.md): a citation matches a
// retrieved document by id, path or title.
func surfaced(c assay.Citation, hits []assay.Hit) bool {
	for _, h := range hits {
		for _, v := range []string{c.ID, c.Path, c.Title} {
			if v != "" && (v == h.ID || v == h.Path || v == h.Title) {
				return true
			}
		}
	}
	return false
}

func unretrieved(judgments map[string]int, hits []assay.Hit) []string {
	seen := map[string]bool{}
	for _, h := range hits {
		seen[h.ID] = true
	}
	var out []string
	for id, g := range judgments {
		if g > 0 && !seen[id] {
			out = append(out, id)
		}
	}
	sort.Strings(out)
	return out
}

func fmtFloat(f float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.3f", f), "0"), ".")
}

type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, args...)
	}
}

// NuggetLine is one nugget's assignment as the reports write it:
// `support      vital  "fact"  by rule, found "sha-256" at byte 12`, a
// judge's assignment marked "model-assigned (judge)".
func NuggetLine(n assay.NuggetResult) string {
	line := fmt.Sprintf("%-15s %-5s %q", n.Assignment, n.Importance, n.Text)
	switch n.By {
	case assay.NuggetByJudge:
		line += "  model-assigned (judge)"
		if n.Reason != "" {
			line += ": " + n.Reason
		}
	default:
		line += "  by " + n.By
	}
	if len(n.Matched) > 0 {
		q := make([]string, len(n.Matched))
		for i, m := range n.Matched {
			q[i] = fmt.Sprintf("%q", m)
		}
		line += ", found " + strings.Join(q, ", ")
		if n.At != nil {
			line += fmt.Sprintf(" at byte %d", *n.At)
		}
	}
	if len(n.Missing) > 0 {
		q := make([]string, len(n.Missing))
		for i, m := range n.Missing {
			q[i] = fmt.Sprintf("%q", m)
		}
		line += ", missing " + strings.Join(q, ", ")
	}
	return line
}
