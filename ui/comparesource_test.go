package ui

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/internal/cputime"
	"github.com/assay-eval/assay/internal/largetest"
	"github.com/assay-eval/assay/runner"
)

// TestComparePageStreamedMatchesLoaded: the compare page of two runs not
// loaded (read a line at a time in compact form, the listed rows read
// from their lines, the segments paired by compare.PairCompact) is the
// page of the same runs loaded whole, byte for byte; also when the runs
// tag a case differently, where a segment keeps only the pairs both runs
// tag alike (the page then pairs the runs loaded whole).
func TestComparePageStreamedMatchesLoaded(t *testing.T) {
	t.Parallel()
	segments := func(r *assay.Run) { r.Segments = runner.Segments(r.Cases, r.Options.Metrics) }
	for name, finish := range map[string]func(*assay.Run){
		"same tags": segments,
		// case q000005 is lang=zh in the baseline
		"a case tagged otherwise": func(r *assay.Run) {
			r.Cases[5].Tags = map[string]string{"lang": "de", "category": "c5"}
			segments(r)
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			st := benchStore(t)
			base := synthRunOf(t, st, 300, 0, false, segments).RunID
			cand := synthRunOf(t, st, 300, 3, false, finish).RunID
			url := "/compare?base=" + base + "&cand=" + cand
			get := func(h http.Handler) string {
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, httptest.NewRequest("GET", url, nil))
				if rec.Code != 200 {
					t.Fatal(rec.Code, rec.Body.String())
				}
				return rec.Body.String()
			}
			cold := New(st, Options{}).(*server)
			got := get(cold)
			for _, c := range cold.src.cmps {
				if c.cases != nil {
					t.Errorf("run %s: read whole, want it read in compact form", c.run.RunID)
				}
			}
			loaded := New(st, Options{}).(*server)
			for _, id := range []string{base, cand} {
				k, err := loaded.src.resolve(context.Background(), id)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := loaded.src.loadKey(context.Background(), k); err != nil {
					t.Fatal(err)
				}
			}
			want := get(loaded)
			for _, c := range loaded.src.cmps {
				if c.cases == nil {
					t.Errorf("run %s: read again, want the loaded run's rows", c.run.RunID)
				}
			}
			if got != want {
				i := 0
				for i < min(len(got), len(want)) && got[i] == want[i] {
					i++
				}
				t.Errorf("pages differ at byte %d:\n%s\nloaded:\n%s", i, got[max(0, i-200):min(len(got), i+200)], want[max(0, i-200):min(len(want), i+200)])
			}
			for _, s := range []string{`<th scope="row">lang=de</th>`, `<th scope="row">category=c6</th>`, "pass → fail", "answer_includes: missing"} {
				if !strings.Contains(got, s) {
					t.Errorf("page lacks %q", s)
				}
			}
		})
	}
}

// BenchmarkComparePage100kSegments is BenchmarkComparePage100k of runs
// with their segments (10 tag values), whose table pairs each segment's
// cases for pass_rate and the head metric.
func BenchmarkComparePage100kSegments(b *testing.B) {
	largetest.Skip(b, "stores two 100,000-case runs")
	st := benchStore(b)
	segments := func(r *assay.Run) { r.Segments = runner.Segments(r.Cases, r.Options.Metrics) }
	base := synthRunOf(b, st, 100_000, 0, false, segments).RunID
	cand := synthRunOf(b, st, 100_000, 3, false, segments).RunID
	b.ReportAllocs()
	b.ResetTimer()
	size := 0
	cpu := cputime.Used()
	for b.Loop() {
		rec := httptest.NewRecorder()
		New(st, Options{}).ServeHTTP(rec, httptest.NewRequest("GET", "/compare?base="+base+"&cand="+cand, nil))
		if rec.Code != 200 || !strings.Contains(rec.Body.String(), `<th scope="row">lang=de</th>`) {
			b.Fatal(rec.Code, rec.Body.String())
		}
		size = rec.Body.Len()
	}
	b.ReportMetric(float64((cputime.Used()-cpu).Milliseconds())/float64(b.N), "cpu-ms/op")
	b.ReportMetric(float64(size), "HTML-bytes")
}
