package ui

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"

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
// are on the first page only, the others linking back to it. st may be nil when the refs
// are paths. It returns the files it
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
		rep, err := src.compare(ctx, bc.key, c.key)
		if err != nil {
			return nil, err
		}
		links.base = bc.run.RunID
		cmp = buildCompare(rep, bc.run, c.run, 0)
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
	err = src.streamCases(ctx, dir, c, bc, links.diffs, func(id string, views []report.CaseView, sc *assay.Case, cs bool) error {
		if links.pages != nil && !links.pages[id] {
			return nil
		}
		return write(CasePage(id), "case", sub, buildCase(c.run, id, views, sc, cs))
	}, func(id string, bv []report.CaseView, bs *assay.Case, bcs bool, cv []report.CaseView, cs *assay.Case, ccs bool) error {
		return write("diff/"+fileName(id)+".html", "comparecase", sub, buildCompareCase(bc.run, c.run, id, bv, bs, bcs, cv, cs, ccs))
	})
	return written, err
}

// CasePage is the page of the case id in a static report, relative to
// its directory (cases/NAME.html): what a PR comment links each case to
// under the URL the report is served at.
func CasePage(id string) string { return "cases/" + fileName(id) + ".html" }

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
