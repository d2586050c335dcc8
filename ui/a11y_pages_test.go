package ui

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// morePageKinds are the pages TestBrowserAccessible checks besides its
// own list: a case page and a diff page of the static report (files,
// from the fixture's report written to static), a whole flip list of
// the comparison (&flips=), a 400 error page, and the pages of the
// static report of a large run (more than staticFullCases cases, lowered
// here): its paged index, a grouped case page and a grouped diff page.
func morePageKinds(t *testing.T, f *fixture, server string, static []string) []string {
	t.Helper()
	c := serverLinks{}
	urls := []string{
		server + c.CompareFlips(f.hBase, f.hCand, "pass-to-fail", 1),
		server + "/compare/case?base=" + f.hBase,
	}
	urls = append(urls, firstOf(t, static, "cases/", "diff/")...)

	full, rows := staticFullCases, staticPageRows
	staticFullCases, staticPageRows = 100, 50
	sy := synthRuns(t)
	files, err := WriteStatic(context.Background(), t.TempDir(), sy.st, sy.cand300, sy.base300)
	staticFullCases, staticPageRows = full, rows
	if err != nil {
		t.Fatal(err)
	}
	return append(urls, firstOf(t, files, "cases-2.html", "cases/g-", "diff/g-")...)
}

// firstOf is, for each prefix, the file:// URL of the first of files
// (written by WriteStatic) whose name from the report's directory starts
// with it; the test fails when one has none.
func firstOf(t *testing.T, files []string, prefixes ...string) []string {
	t.Helper()
	if len(files) == 0 {
		t.Fatal("the static report wrote no files")
	}
	dir := filepath.Dir(files[0]) // index.html is written first
	var urls []string
	for _, p := range prefixes {
		found := false
		for _, f := range files {
			rel, err := filepath.Rel(dir, f)
			if err == nil && strings.HasPrefix(filepath.ToSlash(rel), p) {
				urls = append(urls, "file://"+filepath.ToSlash(f))
				found = true
				break
			}
		}
		if !found {
			t.Fatalf("the static report in %s has no page %s*", dir, p)
		}
	}
	return urls
}
