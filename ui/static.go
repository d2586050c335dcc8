package ui

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"html/template"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/internal/atomicfile"
	"github.com/assay-eval/assay/report"
)

// WriteStatic writes the static report of the run runRef into dir: the
// pages of the UI as files with relative links, for a CI artifact that
// opens from disk with no server and no network. dir/index.html is the
// run page (every case in one table, no filters), dir/cases/NAME.html
// each case whole; with a baseRef, dir/compare.html compares the run with
// it and dir/diff/NAME.html shows each changed case of both runs side by
// side. A run of more than staticFullCases cases gets a page only for
// the cases that did not pass every trial and the changed ones, and its
// index is paged (dir/cases-N.html, staticPageRows rows a page), the
// index saying which pages were left out; the gates, summary and metrics
// are on the first page only, the others linking back to it. Its case and
// diff pages are grouped in at most 256 files a directory
// (cases/g-XX.html#NAME, groupedPage), since a file of its own costs
// each page a whole block of the disk. st may be nil when the refs are
// paths. It returns the files it
// wrote, index.html first.
func WriteStatic(ctx context.Context, dir string, st Store, runRef, baseRef string) ([]string, error) {
	src := newSource(st)
	c, err := src.load(ctx, runRef)
	if err != nil {
		return nil, err
	}
	links := staticLinks{run: c.run.RunID, diffs: map[string]bool{}}
	var cmp *compareData
	var bc *cachedRun
	if baseRef != "" {
		if bc, err = src.load(ctx, baseRef); err != nil {
			return nil, err
		}
		rep, forms, err := src.compareForms(ctx, bc.key, c.key)
		if err != nil {
			return nil, err
		}
		links.base = bc.run.RunID
		cmp, err = buildCompareOf(rep, forms[0], forms[1], 0, func() (*assay.Run, *assay.Run, error) { return bc.run, c.run, nil })
		if err != nil {
			return nil, err
		}
		links.diffs = staticDiffs(cmp.Diffs, maxStaticDiffs)
	}
	var written []string
	write := func(name, page string, l staticLinks, data any) error {
		var buf bytes.Buffer
		if err := render(&buf, page, l, data); err != nil {
			return fmt.Errorf("%s: %v", name, err)
		}
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := atomicfile.Replace(path, func(w io.Writer) error { _, err := w.Write(buf.Bytes()); return err }); err != nil {
			return err
		}
		written = append(written, path)
		return nil
	}
	if err := os.MkdirAll(filepath.Join(dir, "assets"), 0o755); err != nil {
		return nil, err
	}
	if err := atomicfile.Replace(filepath.Join(dir, "assets", "style.css"), func(w io.Writer) error { _, err := io.WriteString(w, styleCSS); return err }); err != nil {
		return nil, err
	}
	index := buildRun(c, caseFilter{}, nil, 1, 0)
	if n := countCases(c.run.Cases); n > staticFullCases {
		links.pages = staticPages(c.run.Cases, links.diffs)
		links.grouped = true
		if cmp != nil {
			// Only the changed cases with a diff page: every status
			// change, and the headline metric's largest moves.
			kept := cmp.Diffs[:0:0]
			for _, r := range cmp.Diffs {
				if links.diffs[r.ID] {
					kept = append(kept, r)
				}
			}
			cmp.Diffs = kept
			cmp.ListedNote = counts.Sprintf("the %d listed, each with its diff page, are those whose status changed and those whose headline metric moved most", len(kept))
		}
		index.Note = counts.Sprintf("This run has %d cases, more than %d: to keep the report small, only the %d cases that did not pass every trial%s have a page of their own; the %d others are listed without a link, %d rows a page.",
			n, staticFullCases, len(links.pages), map[bool]string{true: " or changed against the baseline", false: ""}[cmp != nil], n-len(links.pages), staticPageRows)
		for i, p := range pageRun(index, staticPageRows) {
			if err := write(staticIndexName(i+1), "run", links, p); err != nil {
				return written, err
			}
		}
	} else if err := write("index.html", "run", links, index); err != nil {
		return written, err
	}
	if cmp != nil {
		if err := write("compare.html", "compare", links, cmp); err != nil {
			return written, err
		}
	}
	sub := links
	sub.root = "../"
	casePage := func(id string, views []report.CaseView, sc *assay.Case, cs bool) error {
		return write("cases/"+fileName(id)+".html", "case", sub, buildCase(c.run, id, views, sc, cs))
	}
	diffPage := func(id string, bv []report.CaseView, bs *assay.Case, bcs bool, cv []report.CaseView, cs *assay.Case, ccs bool) error {
		return write("diff/"+fileName(id)+".html", "comparecase", sub, buildCompareCase(bc.run, c.run, id, bv, bs, bcs, cv, cs, ccs))
	}
	var groups *pageGroups
	if links.grouped {
		if groups, err = newPageGroups(dir); err != nil {
			return written, err
		}
		defer groups.close()
		casePage = func(id string, views []report.CaseView, sc *assay.Case, cs bool) error {
			return groups.add("cases", id, "case", sub, buildCase(c.run, id, views, sc, cs))
		}
		diffPage = func(id string, bv []report.CaseView, bs *assay.Case, bcs bool, cv []report.CaseView, cs *assay.Case, ccs bool) error {
			return groups.add("diff", id, "comparecase", sub, buildCompareCase(bc.run, c.run, id, bv, bs, bcs, cv, cs, ccs))
		}
	}
	err = src.streamCases(ctx, dir, c, bc, links.diffs, links.pages, func(id string, views []report.CaseView, sc *assay.Case, cs bool) error {
		if links.pages != nil && !links.pages[id] {
			return nil
		}
		return casePage(id, views, sc, cs)
	}, diffPage)
	if err != nil || groups == nil {
		return written, err
	}
	short := report.ShortID(c.run.RunID)
	err = groups.each(func(name string, parts []groupPart) error {
		title := counts.Sprintf("cases of run %s", short)
		if strings.HasPrefix(name, "diff/") {
			title = counts.Sprintf("changed cases of run %s against %s", short, report.ShortID(bc.run.RunID))
		}
		return write(name, "group", sub, &groupData{Title: title, Parts: parts})
	})
	return written, err
}

// CasePage is the page of the case id in the static report of run,
// relative to its directory: what a PR comment links each case to under
// the URL the report is served at. It is cases/NAME.html, or in the
// report of a run of more than staticFullCases cases, whose case pages
// are grouped, the case's place in its group's file
// (cases/g-XX.html#NAME).
func CasePage(id string, run *assay.Run) string {
	if run != nil && staticGrouped(run) {
		return groupedPage("cases", id)
	}
	return "cases/" + fileName(id) + ".html"
}

// staticGrouped reports whether the static report of run groups its case
// and diff pages: whether it has more than staticFullCases distinct case
// ids (its case rows, or when it holds none, its summary's results over
// its trials per case).
func staticGrouped(run *assay.Run) bool {
	if len(run.Cases) > 0 {
		return countCases(run.Cases) > staticFullCases
	}
	return run.Summary.Cases/max(1, run.Options.Trials) > staticFullCases
}

// groupedPage is the place of case id's page in the grouped layout of a
// large run's report: the anchor NAME in dir/g-XX.html, XX the first
// byte of the id's SHA-256, so that a case's place is known from its id
// alone and the pages fill at most 256 files per directory (a file
// system gives each file whole blocks: 10,000 pages of 4 KB took 41 MB
// on disk, one block each).
func groupedPage(dir, id string) string {
	return dir + "/" + groupFile(id) + ".html#" + fileName(id)
}

func groupFile(id string) string {
	sum := sha256.Sum256([]byte(id))
	return "g-" + hex.EncodeToString(sum[:1])
}

// groupData is a page of grouped case or diff pages: the content of each
// (its page's main element) under an anchor named as its file would be.
type groupData struct {
	Title string
	Parts []groupPart
}

type groupPart struct {
	ID   string
	HTML template.HTML
}

// pageGroups keeps the rendered content of grouped pages in a temporary
// file as they are made (a case's page is ready when its trials are read,
// in the order of the case lines), with their offsets in memory, so that
// each group's file is written once, at the end, without holding every
// page in memory.
type pageGroups struct {
	f   *os.File
	w   *bufio.Writer
	off int64
	at  map[string][]spooledPart // file name (cases/g-XX.html): its parts in order
}

type spooledPart struct {
	id     string
	off, n int64
}

func newPageGroups(dir string) (*pageGroups, error) {
	f, err := os.CreateTemp(dir, ".assay-report-*.html")
	if err != nil {
		return nil, err
	}
	return &pageGroups{f: f, w: bufio.NewWriterSize(f, 1<<16), at: map[string][]spooledPart{}}, nil
}

// add renders the content of page name for case id and keeps it for the
// group of id in dir.
func (g *pageGroups) add(dir, id, name string, l linker, data any) error {
	n := &countingWriter{w: g.w}
	if err := renderContent(n, name, l, data); err != nil {
		return fmt.Errorf("%s: %v", groupedPage(dir, id), err)
	}
	file := dir + "/" + groupFile(id) + ".html"
	g.at[file] = append(g.at[file], spooledPart{fileName(id), g.off, n.n})
	g.off += n.n
	return nil
}

// each calls fn with each group's file name and parts, in the order of
// the names.
func (g *pageGroups) each(fn func(name string, parts []groupPart) error) error {
	if err := g.w.Flush(); err != nil {
		return err
	}
	for _, name := range slices.Sorted(maps.Keys(g.at)) {
		var parts []groupPart
		for _, p := range g.at[name] {
			b := make([]byte, p.n)
			if _, err := g.f.ReadAt(b, p.off); err != nil {
				return err
			}
			parts = append(parts, groupPart{ID: p.id, HTML: template.HTML(b)})
		}
		if err := fn(name, parts); err != nil {
			return err
		}
	}
	return nil
}

func (g *pageGroups) close() {
	g.f.Close()
	os.Remove(g.f.Name())
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// caseViewsOf makes the views of one case's trials (harness.CaseViews'
// shape) from its results and its suite case.
func caseViewsOf(results []assay.CaseResult, c *assay.Case, note string) []report.CaseView {
	views := make([]report.CaseView, 0, len(results))
	for _, r := range results {
		v := report.CaseView{Result: r, SuiteNote: note}
		switch {
		case c != nil:
			v.Query, v.Judgments, v.Turns = c.Query, c.Judgments, c.Turns
		case note == "":
			v.SuiteNote = "the suite has no case " + r.ID
		}
		views = append(views, v)
	}
	return views
}

// maxStaticDiffs bounds the diff pages of cases whose status stayed the
// same (only a metric moved) in a static report.
const maxStaticDiffs = 100

// staticDiffs chooses the changed cases that get a diff page in the
// static report: every case whose status changed (flips included), and
// the max cases whose headline metric moved most.
func staticDiffs(diffs []diffRow, max int) map[string]bool {
	out := map[string]bool{}
	var moved []diffRow
	for _, d := range diffs {
		if d.Base != d.Cand || d.Flip != "" {
			out[d.ID] = true
		} else {
			moved = append(moved, d)
		}
	}
	sort.SliceStable(moved, func(i, j int) bool { return math.Abs(moved[i].delta) > math.Abs(moved[j].delta) })
	for i := 0; i < len(moved) && i < max; i++ {
		out[moved[i].ID] = true
	}
	return out
}

// staticFullCases is the most cases a static report writes a page for
// each of; above it only the cases that did not pass every trial, and
// the changed ones, get a page, and the index is paged at staticPageRows
// rows (a var so that tests can lower them).
var (
	staticFullCases = 2000
	staticPageRows  = 500
)

// countCases is the number of distinct case ids in cases.
func countCases(cases []assay.CaseResult) int {
	seen := make(map[string]bool, len(cases))
	for _, r := range cases {
		seen[r.ID] = true
	}
	return len(seen)
}

// staticPages is the cases that get a page in the static report of a
// large run: every case with a trial that did not pass (failed, errored
// or ungraded), and the changed cases (those with a diff page).
func staticPages(cases []assay.CaseResult, diffs map[string]bool) map[string]bool {
	out := map[string]bool{}
	for id := range diffs {
		out[id] = true
	}
	for _, r := range cases {
		if r.Error != nil || r.Pass == nil || !*r.Pass {
			out[r.ID] = true
		}
	}
	return out
}

// staticIndexName is the file of page n (from 1) of the static index.
func staticIndexName(n int) string {
	if n == 1 {
		return "index.html"
	}
	return fmt.Sprintf("cases-%d.html", n)
}

// pageRun cuts the run page d (every row) into pages of size rows, each
// linked to its neighbours.
func pageRun(d *runData, size int) []*runData {
	pages := max(1, (len(d.Rows)+size-1)/size)
	out := make([]*runData, pages)
	for i := range pages {
		p := *d
		p.Rows = d.Rows[i*size : min((i+1)*size, len(d.Rows))]
		p.Page, p.Pages, p.Prev, p.Next = i+1, pages, "", ""
		if i > 0 {
			p.Prev = staticIndexName(i)
			p.Continued = staticIndexName(1)
		}
		if i+1 < pages {
			p.Next = staticIndexName(i + 2)
		}
		out[i] = &p
	}
	return out
}
