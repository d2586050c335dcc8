package ui

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/assay-eval/assay/internal/largetest"
)

// A case page and a case diff of runs not yet loaded read the runs'
// headers and the case's lines (through the case index), never a run
// whole: the run cache stays empty.
func TestCasePagesReadOneCase(t *testing.T) {
	sy := synthRuns(t)
	base, cand := sy.base1000, sy.cand1000
	h := New(sy.st, Options{})
	s := h.(*server)
	page := body(t, h, "/run/"+cand+"/case/q000845")
	if !strings.Contains(page, "Answer 845: tokens are hashed") {
		t.Errorf("case page lacks the case's answer:\n%s", page)
	}
	diff := body(t, h, "/compare/case?base="+base+"&cand="+cand+"&id=q000234")
	if !strings.Contains(diff, "Answer 234: tokens are hashed") {
		t.Errorf("case diff lacks the case's answer:\n%s", diff)
	}
	s.src.mu.Lock()
	loaded := len(s.src.runs)
	s.src.mu.Unlock()
	if loaded != 0 {
		t.Errorf("%d runs loaded whole to serve a case page and a case diff; want none", loaded)
	}
	if rec := get(t, h, "GET", "/run/"+cand+"/case/nope"); rec.Code != 404 {
		t.Errorf("a case the run lacks: %d, want 404", rec.Code)
	}
}

// BenchmarkCasePage100k serves a case page of a 100,000-case run with a
// new server each time (nothing cached). Goal: <= 100 ms.
func BenchmarkCasePage100k(b *testing.B) {
	largetest.Skip(b, "stores a 100,000-case run")
	st := benchStore(b)
	id := synthRun(b, st, 100_000, 0, true)
	b.ReportAllocs()
	for b.Loop() {
		rec := httptest.NewRecorder()
		New(st, Options{}).ServeHTTP(rec, httptest.NewRequest("GET", "/run/"+id+"/case/q054321", nil))
		if rec.Code != 200 {
			b.Fatal(rec.Code, rec.Body.String())
		}
	}
}

// BenchmarkCaseDiff100k serves the diff of one case of two 100,000-case
// runs with a new server each time. Goal: <= 100 ms.
func BenchmarkCaseDiff100k(b *testing.B) {
	largetest.Skip(b, "stores two 100,000-case runs")
	st := benchStore(b)
	base := synthRun(b, st, 100_000, 0, true)
	cand := synthRun(b, st, 100_000, 3, true)
	b.ReportAllocs()
	for b.Loop() {
		rec := httptest.NewRecorder()
		New(st, Options{}).ServeHTTP(rec, httptest.NewRequest("GET", "/compare/case?base="+base+"&cand="+cand+"&id=q054321", nil))
		if rec.Code != 200 {
			b.Fatal(rec.Code, rec.Body.String())
		}
	}
}
