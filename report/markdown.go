package report

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/compare"
	"github.com/assay-eval/assay/gate"
	"github.com/assay-eval/assay/internal/aggregate"
	"github.com/assay-eval/assay/internal/atomicfile"
)

// MarkdownMaxFailures caps the failing cases Markdown lists.
const MarkdownMaxFailures = 50

// MarkdownOptions tune MarkdownWith.
type MarkdownOptions struct {
	// CaseURL, when set, is the link of a case's page (the HTML report's
	// cases/NAME.html under a base URL or relative path, as the caller
	// serves it): each regressed and failing case listed links to it. ""
	// for an id leaves that case without a link.
	CaseURL func(id string) string
}

// Markdown is MarkdownWith with no options.
func Markdown(w io.Writer, run *assay.Run, cmp *compare.Report) error {
	return MarkdownWith(w, run, cmp, MarkdownOptions{})
}

// MarkdownWith writes a GitHub-flavoured markdown summary of the run, for
// a pull request comment or $GITHUB_STEP_SUMMARY, in the order a reviewer
// reads it: a status headline; the gates (✅/❌, observed value and
// bound); the verdict with its reason (the comparison's with the baseline
// when cmp is not nil, else the gates'); each regressed case (pass → fail
// against the baseline) with its first failing check; then the run's
// totals, metrics with n, trial statistics (pass@N, pass^N, flaky cases)
// when a case ran more than once, the segments, the comparison in full,
// the failing cases with their facts (at most MarkdownMaxFailures), and
// the warnings. A case listed links to its page when o.CaseURL is set.
// Text from the run is escaped so it renders as written.
func MarkdownWith(w io.Writer, run *assay.Run, cmp *compare.Report, o MarkdownOptions) error {
	p := &printer{w: w}
	s := run.Summary
	name := nonEmpty(run.Suite.Name, "suite")

	var failed []assay.GateResult
	for _, g := range run.Gates {
		if !g.Pass {
			failed = append(failed, g)
		}
	}
	regressed := cmp != nil && cmp.Verdict == compare.Regressed
	switch {
	case run.Status == assay.StatusIncomplete:
		p.f("## ⚠️ assay · %s — run incomplete\n\n", mdEscape(name))
	case len(failed) > 0:
		p.f("## ❌ assay · %s — %d of %d gates failed\n\n", mdEscape(name), len(failed), len(run.Gates))
	case regressed:
		p.f("## ❌ assay · %s — regressed\n\n", mdEscape(name))
	case len(run.Gates) > 0:
		p.f("## ✅ assay · %s — every gate held\n\n", mdEscape(name))
	default:
		p.f("## assay · %s\n\n", mdEscape(name))
	}

	if len(run.Gates) > 0 {
		markdownGates(p, run.Gates)
	}
	markdownVerdict(p, run, cmp, failed)
	if cmp != nil && len(cmp.Flips.PassToFail) > 0 {
		if err := markdownRegressed(p, run, cmp, o); err != nil {
			return err
		}
	}

	id := run.RunID
	if len(id) > 13 {
		id = id[:13]
	}
	p.f("run `%s` · target `%s` · %s", nonEmpty(id, "unsaved"), mdCode(nonEmpty(run.Target.Spec, nonEmpty(run.Target.Kind, "?"))), run.Status)
	if !run.StartedAt.IsZero() {
		p.f(" · %s", run.StartedAt.UTC().Format("2006-01-02 15:04 UTC"))
		if run.FinishedAt.After(run.StartedAt) {
			p.f(" · %s", run.FinishedAt.Sub(run.StartedAt).Round(time.Millisecond))
		}
	}
	if run.Options.Trials > 1 {
		p.f(" · %d trials per case", run.Options.Trials)
	}
	p.f("\n\n")

	p.f("| pass rate | graded | passed | failed | errors | p50 | p95 |\n")
	p.f("|---:|---:|---:|---:|---:|---:|---:|\n")
	p50, p95 := "–", "–"
	if s.LatencyMs.N > 0 {
		p50, p95 = Millis(s.LatencyMs.P50)+" ms", Millis(s.LatencyMs.P95)+" ms"
	}
	p.f("| %s | %d | %d | %d | %d | %s | %s |\n\n", Percent(s.PassRate), s.Graded, s.Passed, s.Failed, s.Errors, p50, p95)
	if names := StageNames(s.Stages); len(names) > 0 {
		p.f("| stage | p50 | p95 | n |\n|---|---:|---:|---:|\n")
		for _, name := range names {
			l := s.Stages[name]
			p.f("| %s | %s ms | %s ms | %d |\n", mdEscape(name), Millis(l.P50), Millis(l.P95), l.N)
		}
		p.f("\n")
	}
	if s.Retried > 0 {
		p.f("%d of %d cases were retried; latency excludes the backoff waits.\n\n", s.Retried, s.Cases)
	}
	if s.Cached > 0 {
		p.f("Cached %d of %d cases: answered from the cache, not the system (no latency measured for them).\n\n", s.Cached, s.Cases)
	}
	if l := costLine(s, mdEscape); l != "" {
		p.f("Cost: %s.\n\n", l)
	}
	if l := NotRunLine(s); l != "" {
		p.f("Not run: %s.\n\n", l)
	}

	if names := MetricOrder(run); len(names) > 0 {
		gain := run.Gain
		if gain == "" {
			gain = assay.GainLinear
		}
		p.f("### Metrics\n\n")
		p.f("| metric | mean | n |\n|---|---:|---:|\n")
		for _, n := range names {
			m := s.Metrics[n]
			p.f("| %s | %.4f | %d |\n", mdEscape(n), m.Mean, m.N)
		}
		p.f("\nMeans over judged cases; gain %s.\n\n", gain)
	}
	if nl := nuggetLine(s.Nuggets); nl != "" {
		p.f("Nuggets: %s.\n\n", mdEscape(nl))
	}
	if jl := judgeLines(s.Judge); len(jl) > 0 {
		p.f("### Judge\n\n")
		for _, l := range jl {
			p.f("- %s\n", mdEscape(l))
		}
		p.f("\n")
	}

	st := aggregate.Trials(run.Cases)
	if st.Trials > 1 {
		n := st.Trials
		p.f("### Trials\n\n")
		p.f("pass@%d %s · pass^%d %s · %d flaky", n, Percent(st.PassAny), n, Percent(st.PassAll), len(st.Flaky))
		if len(st.Flaky) > 0 {
			ids := make([]string, len(st.Flaky))
			for i, id := range st.Flaky {
				ids[i] = "`" + mdCode(id) + "`"
			}
			p.f(": %s", strings.Join(ids, ", "))
		}
		p.f("\n\n")
		if len(st.Metrics) > 0 {
			p.f("| metric | mean ± sd across trials |\n|---|---:|\n")
			for _, m := range slices.Sorted(maps.Keys(st.Metrics)) {
				ms := st.Metrics[m]
				p.f("| %s | %.4f ± %.4f |\n", mdEscape(m), ms.Mean, ms.SD)
			}
			p.f("\n")
		}
	}

	if len(run.Segments) > 0 {
		head := headlineMetric(run)
		p.f("### Segments\n\n| segment | cases | pass rate |")
		if head != "" {
			p.f(" %s |", mdEscape(head))
		}
		p.f("\n|---|---:|---:|")
		if head != "" {
			p.f("---:|")
		}
		p.f("\n")
		for _, k := range slices.Sorted(maps.Keys(run.Segments)) {
			seg := run.Segments[k]
			p.f("| %s | %d | %s |", mdEscape(k), seg.Cases, Percent(seg.PassRate))
			if head != "" {
				if m, ok := seg.Metrics[head]; ok {
					p.f(" %.4f |", m.Mean)
				} else {
					p.f(" – |")
				}
			}
			p.f("\n")
		}
		p.f("\n")
	}

	if cmp != nil {
		markdownComparison(p, cmp)
	}

	fl, err := collectFailing(run, MarkdownMaxFailures, func(c assay.CaseResult) bool {
		return (c.Pass != nil && !*c.Pass) || c.Error != nil
	})
	if err != nil {
		return err
	}
	if fl.n > 0 {
		p.f("### Failing cases (%d%s)\n\n", fl.n, fl.ungradedNote())
		multi := st.Trials > 1
		for _, c := range fl.shown {
			p.f("- %s", caseLink(c.ID, o, true))
			if multi {
				p.f(" (trial %d)", c.Trial)
			}
			var facts []string
			if c.Error != nil {
				facts = append(facts, fmt.Sprintf("error `%s`: %s", c.Error.Class, mdEscape(c.Error.Message)))
			} else {
				for _, ch := range c.Checks {
					if !ch.Pass {
						facts = append(facts, fmt.Sprintf("`%s`: %s", mdCode(ch.Kind), mdEscape(ch.Detail)))
					}
				}
			}
			if len(facts) > 0 {
				p.f(" — %s", strings.Join(facts, "; "))
			}
			p.f("\n")
		}
		if more := fl.n - len(fl.shown); more > 0 {
			p.f("- … and %d more (see the JSON report)\n", more)
		}
		p.f("\n")
	}

	if len(run.Warnings) > 0 {
		for _, wn := range run.Warnings {
			p.f("> ⚠️ %s\n", mdEscape(wn))
		}
		p.f("\n")
	}
	if run.Status == assay.StatusIncomplete {
		p.f("The run is incomplete: not every case was observed, so it cannot pass and is never used as a baseline.\n")
	}
	return p.err
}

// markdownGates writes the gates table: ✅/❌, the expression, the
// observed value and the bound, and the detail with the gate's source.
func markdownGates(p *printer, gates []assay.GateResult) {
	p.f("| | gate | observed | bound | detail |\n|---|---|---:|---:|---|\n")
	for _, g := range gates {
		mark := "✅"
		if !g.Pass {
			mark = "❌"
		}
		val, bound := "–", num(g.Bound)
		if g.Value != nil {
			val, bound = gate.FormatPair(*g.Value, g.Bound)
		}
		if g.Op != "" {
			bound = mdEscape(g.Op + " " + bound)
		}
		detail := g.Detail
		if g.Source != "" && g.Source != "--gate" {
			detail = strings.TrimSpace(detail + " (" + g.Source + ")")
		}
		p.f("| %s | `%s` | %s | %s | %s |\n", mark, mdCode(g.Expr), val, bound, mdEscape(detail))
	}
	p.f("\n")
}

// markdownVerdict writes the verdict and its reason: the comparison's
// with the baseline, else the gates' (saying that nothing was compared).
func markdownVerdict(p *printer, run *assay.Run, cmp *compare.Report, failed []assay.GateResult) {
	if cmp != nil {
		base := cmp.Baseline
		if len(base) > 13 {
			base = base[:13]
		}
		p.f("**Verdict: %s** against `%s` (%s)", cmp.Verdict, mdCode(base), count(cmp.PairedCases, "paired case", "paired cases"))
		if len(cmp.Reasons) > 0 {
			p.f(": %s", mdEscape(strings.Join(cmp.Reasons, "; ")))
		}
		p.f(".\n\n")
		return
	}
	switch {
	case run.Status == assay.StatusIncomplete:
		p.f("**Verdict: incomplete**: not every case was observed, so the run cannot pass.")
	case len(failed) > 0:
		var why []string
		for _, g := range failed {
			r := "`" + mdCode(g.Expr) + "`"
			if g.Value != nil {
				v, b := gate.FormatPair(*g.Value, g.Bound)
				r += fmt.Sprintf(" (observed %s, bound %s)", v, mdEscape(g.Op+" "+b))
			} else if g.Detail != "" {
				r += " (" + mdEscape(g.Detail) + ")"
			}
			why = append(why, r)
		}
		p.f("**Verdict: failed**: %s.", strings.Join(why, "; "))
	case len(run.Gates) > 0:
		p.f("**Verdict: passed**: every gate held.")
	default:
		p.f("**Verdict: no gates**: the run checks nothing.")
	}
	p.f(" No baseline run was compared.\n\n")
}

// markdownRegressed lists the cases that went from pass to fail against
// the baseline, each with its first failing check (or its error), linked
// to its page when o.CaseURL is set.
func markdownRegressed(p *printer, run *assay.Run, cmp *compare.Report, o MarkdownOptions) error {
	flipped := map[string]bool{}
	for _, id := range cmp.Flips.PassToFail {
		flipped[id] = true
	}
	seen := map[string]bool{}
	fl, err := collectFailing(run, 0, func(c assay.CaseResult) bool {
		if !flipped[c.ID] || seen[c.ID] || !((c.Pass != nil && !*c.Pass) || c.Error != nil) {
			return false
		}
		seen[c.ID] = true
		return true
	})
	if err != nil {
		return err
	}
	p.f("### Regressed cases (%d)\n\n", len(cmp.Flips.PassToFail))
	for i, c := range fl.shown {
		if i == MarkdownMaxFailures {
			p.f("- … and %d more (see the JSON report)\n", len(fl.shown)-i)
			break
		}
		p.f("- %s — %s\n", caseLink(c.ID, o, false), mdFirstFailure(c))
	}
	p.f("\n")
	return nil
}

// mdFirstFailure is the first fact of a failing case: its error, else
// its first failing check (firstFailure, as JUnit reports it).
func mdFirstFailure(c assay.CaseResult) string {
	if c.Error != nil {
		return fmt.Sprintf("error `%s`: %s", c.Error.Class, mdEscape(c.Error.Message))
	}
	kind, msg := firstFailure(c)
	// msg is "kind: detail": the kind is shown as code.
	return fmt.Sprintf("`%s`: %s", mdCode(kind), mdEscape(strings.TrimPrefix(msg, kind+": ")))
}

// caseLink is a case id as a list shows it: bold (or code), a link to its
// page when o.CaseURL gives one.
func caseLink(id string, o MarkdownOptions, bold bool) string {
	text := "`" + mdCode(id) + "`"
	if bold {
		text = "**" + mdEscape(id) + "**"
	}
	if o.CaseURL == nil {
		return text
	}
	u := o.CaseURL(id)
	if u == "" {
		return text
	}
	return "[" + text + "](" + mdURL(u) + ")"
}

// mdURL makes a URL safe inside a markdown link's parentheses.
func mdURL(u string) string {
	r := strings.NewReplacer(" ", "%20", "(", "%28", ")", "%29", "<", "%3C", ">", "%3E", "\n", "", "\r", "")
	return r.Replace(u)
}

func markdownComparison(p *printer, cmp *compare.Report) {
	base := cmp.Baseline
	if len(base) > 13 {
		base = base[:13]
	}
	p.f("### Compared with `%s`: %s\n\n", mdCode(base), cmp.Verdict)
	p.f("%s", count(cmp.PairedCases, "paired case", "paired cases"))
	if len(cmp.Reasons) > 0 {
		p.f(" · %s", mdEscape(strings.Join(cmp.Reasons, "; ")))
	}
	p.f("\n\n")
	if len(cmp.Metrics) > 0 {
		p.f("| metric | baseline | run | delta | 95%% CI | p | p adj | |\n|---|---:|---:|---:|---:|---:|---:|---|\n")
		for _, m := range cmp.Metrics {
			mark := "~"
			if m.Significant {
				mark = string(m.Change)
			}
			p.f("| %s | %.4f | %.4f | %+.4f | [%+.4f, %+.4f] | %s | %s | %s |\n",
				mdEscape(m.Name), m.Baseline, m.Candidate, m.Delta, m.CI95[0], m.CI95[1], mdEscape(pval(m.P)), mdEscape(padj(m.PAdjusted)), mdEscape(mark))
		}
		p.f("\n")
		compareEffectMarkdown(p, *cmp)
	}
	if cmp.Method != "" {
		p.f("<sub>method: %s</sub>\n\n", mdEscape(cmp.Method))
	}
	flips := func(label string, ids []string) {
		if len(ids) == 0 {
			return
		}
		sorted := append([]string(nil), ids...)
		sort.Strings(sorted)
		for i, id := range sorted {
			sorted[i] = "`" + mdCode(id) + "`"
		}
		p.f("%s (%d): %s\n\n", label, len(ids), strings.Join(sorted, ", "))
	}
	flips("pass → fail", cmp.Flips.PassToFail)
	flips("fail → pass", cmp.Flips.FailToPass)
	if ev := cmp.FlipEvidence; ev != nil {
		for _, g := range flipGroups(ev) {
			flips(g.label, caseIDs(g.cases))
		}
		if ev.Advice != "" {
			p.f("%s\n\n", mdEscape(ev.Advice))
		}
	}
	for _, wn := range cmp.Warnings {
		p.f("> ⚠️ %s\n", mdEscape(wn))
	}
	if len(cmp.Warnings) > 0 {
		p.f("\n")
	}
}

// mdEscape escapes text for a markdown paragraph or table cell: markdown
// punctuation and HTML brackets, pipes, and newlines (as spaces).
func mdEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '\\', '`', '*', '_', '[', ']', '|', '#':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '&':
			b.WriteString("&amp;")
		case '\n', '\r':
			b.WriteByte(' ')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// mdCode makes s safe inside a `code span` (in a table): backticks become
// quotes, pipes are escaped, newlines become spaces.
func mdCode(s string) string {
	r := strings.NewReplacer("`", "'", "|", `\|`, "\n", " ", "\r", " ")
	return r.Replace(s)
}

// MarkdownMatrix writes one table across the runs of a variant matrix (one
// row per variant: pass rate, each metric, p95 latency, gates held), then
// the ordering results.
func MarkdownMatrix(w io.Writer, runs []*assay.Run, orderings gate.Verdict) error {
	p := &printer{w: w}
	name := "suite"
	if len(runs) > 0 {
		name = nonEmpty(runs[0].Suite.Name, name)
	}
	failed := len(orderings.Failed())
	for _, r := range runs {
		for _, g := range r.Gates {
			if !g.Pass {
				failed++
			}
		}
	}
	mark := "✅"
	if failed > 0 {
		mark = "❌"
	}
	p.f("## %s assay · %s — %d variants\n\n", mark, mdEscape(name), len(runs))
	var metrics []string
	seen := map[string]bool{}
	for _, r := range runs {
		for _, m := range MetricOrder(r) {
			if !seen[m] {
				seen[m] = true
				metrics = append(metrics, m)
			}
		}
	}
	p.f("| variant | pass rate |")
	for _, m := range metrics {
		p.f(" %s |", mdEscape(m))
	}
	p.f(" p95 | gates |\n|---|---:|")
	for range metrics {
		p.f("---:|")
	}
	p.f("---:|---|\n")
	for _, r := range runs {
		p.f("| %s | %s |", mdEscape(nonEmpty(gate.VariantName(r.Variant), r.RunID)), Percent(r.Summary.PassRate))
		for _, m := range metrics {
			if agg, ok := r.Summary.Metrics[m]; ok {
				p.f(" %.4f |", agg.Mean)
			} else {
				p.f(" – |")
			}
		}
		p95 := "–"
		if r.Summary.LatencyMs.N > 0 {
			p95 = Millis(r.Summary.LatencyMs.P95) + " ms"
		}
		held := 0
		for _, g := range r.Gates {
			if g.Pass {
				held++
			}
		}
		gates := "–"
		if len(r.Gates) > 0 {
			gates = fmt.Sprintf("%d/%d", held, len(r.Gates))
			if held < len(r.Gates) {
				gates += " ❌"
			}
		}
		p.f(" %s | %s |\n", p95, gates)
	}
	p.f("\n")
	if len(orderings.Results) > 0 {
		p.f("### Orderings\n\n")
		for _, g := range orderings.Results {
			m := "✅"
			if !g.Pass {
				m = "❌"
			}
			p.f("- %s `%s` — %s\n", m, mdCode(strings.TrimPrefix(g.Expr, "ordering ")), mdEscape(g.Detail))
		}
		p.f("\n")
	}
	return p.err
}

// WriteReportDir writes the CI report directory: DIR/YYYY-MM-DD.json (the
// assay.run/v1 document, dated by now in UTC; a later run the same day
// replaces it), and refreshes DIR/latest.md (Markdown) and DIR/badge.json
// (Badge). DIR is created when missing. Each file is rendered straight into
// a temporary file (one case at a time) and renamed, so a reader never sees
// half a report and a failed render replaces nothing. It returns the paths
// written.
func WriteReportDir(dir string, run *assay.Run, cmp *compare.Report, verdict gate.Verdict, now time.Time) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	files := []struct {
		name   string
		render func(io.Writer) error
	}{
		{now.UTC().Format("2006-01-02") + ".json", func(w io.Writer) error { return JSON(w, run) }},
		{"latest.md", func(w io.Writer) error { return Markdown(w, run, cmp) }},
		{"badge.json", func(w io.Writer) error { return Badge(w, run, verdict) }},
	}
	var written []string
	for _, f := range files {
		path := filepath.Join(dir, f.name)
		if err := writeFileAtomic(path, f.render); err != nil {
			return written, err
		}
		written = append(written, path)
	}
	return written, nil
}

// writeFileAtomic renders into path through a buffer, whole or not at all
// (atomicfile.Replace).
func writeFileAtomic(path string, render func(io.Writer) error) error {
	return atomicfile.Replace(path, func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 64<<10)
		if err := render(bw); err != nil {
			return err
		}
		return bw.Flush()
	})
}
