package ui

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"html/template"
	"io"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/assay-eval/assay/gate"
	"github.com/assay-eval/assay/report"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// linker makes the URLs of the pages: the server's paths, or the static
// report's relative file names ("" when the page is not in the report,
// and the template shows plain text instead of a link).
type linker interface {
	Runs(suite string) string
	Run(id string) string
	Case(runID, caseID string) string
	Compare(base, cand string) string
	CompareCase(base, cand, caseID string) string
	// CompareFlips is page page (from 1) of the whole flip list kind
	// (flipKinds) of the comparison; "" where no page lists it.
	CompareFlips(base, cand, kind string, page int) string
	History(suite, caseID string) string
	Asset(name string) string
	// Filter is the run page with its case table filtered or sorted by
	// query (URL-encoded); "" where the pages have no filters.
	Filter(runID, query string) string
	// Static reports whether the pages are files (no filters, no server).
	Static() bool
}

type serverLinks struct{}

func (serverLinks) Runs(suite string) string {
	if suite == "" {
		return "/"
	}
	return "/?suite=" + url.QueryEscape(suite)
}
func (serverLinks) Run(id string) string { return "/run/" + url.PathEscape(id) }
func (serverLinks) Case(runID, caseID string) string {
	return "/run/" + url.PathEscape(runID) + "/case/" + url.PathEscape(caseID)
}
func (serverLinks) Compare(base, cand string) string {
	return "/compare?base=" + url.QueryEscape(base) + "&cand=" + url.QueryEscape(cand)
}
func (serverLinks) CompareCase(base, cand, caseID string) string {
	return "/compare/case?base=" + url.QueryEscape(base) + "&cand=" + url.QueryEscape(cand) + "&id=" + url.QueryEscape(caseID)
}
func (l serverLinks) CompareFlips(base, cand, kind string, page int) string {
	u := l.Compare(base, cand) + "&flips=" + url.QueryEscape(kind)
	if page > 1 {
		u += "&page=" + strconv.Itoa(page)
	}
	return u + "#" + kind
}
func (serverLinks) History(suite, caseID string) string {
	u := "/history?suite=" + url.QueryEscape(suite)
	if caseID != "" {
		u += "&case=" + url.QueryEscape(caseID)
	}
	return u
}
func (serverLinks) Asset(name string) string { return "/assets/" + name }
func (l serverLinks) Filter(runID, query string) string {
	if query == "" {
		return l.Run(runID)
	}
	return l.Run(runID) + "?" + query
}
func (serverLinks) Static() bool { return false }

// staticLinks are the links of the static report: index.html is the run,
// cases/NAME.html its cases, compare.html the comparison with the
// baseline and diff/NAME.html its per-case diffs; root is the way back to
// the report's directory from the page ("" or "../").
type staticLinks struct {
	root      string
	run, base string
	diffs     map[string]bool
	// pages are the cases that have a page; nil: every case.
	pages map[string]bool
	// grouped: the case and diff pages are grouped in files of many
	// (groupedPage), as in the report of a large run.
	grouped bool
}

func (l staticLinks) Runs(string) string { return "" }
func (l staticLinks) Run(id string) string {
	if id == l.run {
		return l.root + "index.html"
	}
	return ""
}
func (l staticLinks) Case(runID, caseID string) string {
	if runID == l.run && (l.pages == nil || l.pages[caseID]) {
		if l.grouped {
			return l.root + groupedPage("cases", caseID)
		}
		return l.root + "cases/" + fileName(caseID) + ".html"
	}
	return ""
}
func (l staticLinks) Compare(base, cand string) string {
	if l.base != "" && base == l.base && cand == l.run {
		return l.root + "compare.html"
	}
	return ""
}
func (l staticLinks) CompareCase(base, cand, caseID string) string {
	if l.base != "" && base == l.base && cand == l.run && l.diffs[caseID] {
		if l.grouped {
			return l.root + groupedPage("diff", caseID)
		}
		return l.root + "diff/" + fileName(caseID) + ".html"
	}
	return ""
}

// CompareFlips is, in the static report, the changed-case table of
// compare.html, which lists every paired case that changed status: the
// flips of every kind but the changed, unpaired cases.
func (l staticLinks) CompareFlips(base, cand, kind string, _ int) string {
	if c := l.Compare(base, cand); c != "" && kind != "changed-not-paired" {
		return c + "#diffs"
	}
	return ""
}
func (l staticLinks) History(string, string) string { return "" }
func (l staticLinks) Asset(name string) string      { return l.root + "assets/" + name }
func (l staticLinks) Static() bool                  { return true }
func (l staticLinks) Filter(string, string) string  { return "" }

// fileName is a case id as a file name: its letters, digits, '.', '-'
// and '_' (at most 40), then 10 hex digits of its SHA-256, so that two
// ids never share a file and no id can name a path outside the report.
func fileName(id string) string {
	var b strings.Builder
	for _, r := range id {
		if b.Len() >= 40 {
			break
		}
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			b.WriteRune(r)
		case r == '.':
			if b.Len() > 0 {
				b.WriteRune(r)
			}
		}
	}
	sum := sha256.Sum256([]byte(id))
	return b.String() + "-" + hex.EncodeToString(sum[:5])
}

// idsArg passes the view and a list of case ids to the idlist template.
type idsArg struct {
	V    view
	List *idList
}

var counts = message.NewPrinter(language.English)

// pairArg passes the view and a string to a nested template.
type pairArg struct {
	V view
	S string
}

// styleCSS is the stylesheet, written into the static report.
var styleCSS = func() string {
	b, err := files.ReadFile("assets/style.css")
	if err != nil {
		panic(err)
	}
	return string(b)
}()

// view is what every template gets: the links, and the page's data.
type view struct {
	L linker
	P any
}

var funcs = template.FuncMap{
	"pct":  report.Percent,
	"pctv": report.PercentOf,
	"f4":   func(v float64) string { return fmt.Sprintf("%.4f", v) },
	"cost": func(v *float64) string {
		return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.6f", *v), "0"), ".")
	},
	"usd":      func(v *float64) string { return report.USD(*v) },
	"costline": report.CostLine,
	"notrun":   report.NotRunLine,
	"signed":   func(v float64) string { return fmt.Sprintf("%+.4f", v) },
	"fixed4":   report.Fixed4,
	"interval": report.Interval,
	"ms":       report.Millis,
	"msp": func(v *float64) string {
		if v == nil {
			return "-"
		}
		return report.Millis(*v)
	},
	"signedms": report.SignedMillis,
	"pval": func(p float64) string {
		if p < 0.001 {
			return "<0.001"
		}
		return fmt.Sprintf("%.3f", p)
	},
	"short": report.ShortID,
	"utc": func(t time.Time) string {
		if t.IsZero() {
			return "-"
		}
		return t.UTC().Format("2006-01-02 15:04:05")
	},
	"dur": func(a, b time.Time) string {
		if a.IsZero() || b.IsZero() {
			return ""
		}
		return b.Sub(a).Round(time.Millisecond).String()
	},
	"gatevalue": func(v *float64, bound float64) [2]string {
		if v == nil {
			return [2]string{"n/a", fmt.Sprint(bound)}
		}
		a, b := gate.FormatPair(*v, bound)
		return [2]string{a, b}
	},
	"add":      func(a, b int) int { return a + b },
	"pair":     func(v view, s string) pairArg { return pairArg{v, s} },
	"ids":      func(v view, l *idList) idsArg { return idsArg{v, l} },
	"count":    func(n int) string { return counts.Sprint(n) },
	"list":     func(ts ...*trialView) []*trialView { return ts },
	"sigrule":  report.SignificanceRule,
	"effect":   report.EffectCells,
	"statuses": func() []string { return statusFilters },
	"cellmark": func(class string) string {
		return map[string]string{"pass": "✓", "fail": "✗", "error": "!", "ungraded": "·", "flaky": "~"}[class]
	},
	"commit": func(c string) string {
		if len(c) > 12 {
			return c[:12]
		}
		return c
	},
}

// pages are the templates by name, each parsed with the layout: once, on
// the first page rendered, not when the binary starts (every command links
// this package).
var pages = sync.OnceValue(func() map[string]*template.Template {
	base := template.Must(template.New("layout.html").Funcs(funcs).ParseFS(files, "templates/layout.html", "templates/parts.html"))
	m := map[string]*template.Template{}
	for _, name := range []string{"runs", "run", "case", "compare", "comparecase", "history", "error", "group"} {
		t := template.Must(base.Clone())
		m[name] = template.Must(t.ParseFS(files, "templates/"+name+".html"))
	}
	return m
})

// renderContent writes the content of the page name with data, without
// the layout around it: a part of a page of grouped pages.
func renderContent(w io.Writer, name string, l linker, data any) error {
	t, ok := pages()[name]
	if !ok {
		return fmt.Errorf("no page %q", name)
	}
	return t.ExecuteTemplate(w, "content", view{L: l, P: data})
}

// render writes the page name with data.
func render(w io.Writer, name string, l linker, data any) error {
	t, ok := pages()[name]
	if !ok {
		return fmt.Errorf("no page %q", name)
	}
	return t.ExecuteTemplate(w, "layout.html", view{L: l, P: data})
}
