package postgres_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/store"
	"github.com/assay-eval/assay/store/postgres/pgtest"
	"github.com/assay-eval/assay/store/storetest"
)

// benchCase is a case result with an observation of a usual size: ten
// retrieved documents with a snippet each and an answer.
func benchCase(i int) assay.CaseResult {
	c := storetest.Case(fmt.Sprintf("q%05d", i), i%3 != 0, float64(i%10)/10)
	hits := make([]assay.Hit, 10)
	for j := range hits {
		hits[j] = assay.Hit{ID: fmt.Sprintf("doc-%d-%d", i, j), Score: float64(10 - j), Title: "Document title",
			Text: strings.Repeat("snippet text of the retrieved passage ", 5)}
	}
	c.Observation.Retrieved = hits
	c.Observation.Answer = strings.Repeat("an answer of a few sentences. ", 6)
	return c
}

// BenchmarkStore10kCases: Begin, 10,000 Appends and Finish, into
// Postgres: j1 appends one after another (the slowest order: no two in
// flight), j4 from four goroutines as `assay run -j 4` does.
func BenchmarkStore10kCases(b *testing.B) {
	s := openTest(b, pgtest.URL(b))
	cases := make([]assay.CaseResult, 10000)
	for i := range cases {
		cases[i] = benchCase(i)
	}
	ctx := context.Background()
	for _, j := range []int{1, 4} {
		b.Run(fmt.Sprintf("j%d", j), func(b *testing.B) {
			for range b.N {
				run := storetest.NewRun("bench", time.Now().UTC())
				w, err := s.Begin(ctx, run)
				if err != nil {
					b.Fatal(err)
				}
				var wg sync.WaitGroup
				for g := range j {
					wg.Go(func() {
						for i := g; i < len(cases); i += j {
							if err := w.Append(cases[i]); err != nil {
								b.Error(err)
								return
							}
						}
					})
				}
				wg.Wait()
				storetest.Complete(run, cases)
				if err := w.Finish(run); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkList1000Runs: List (what `assay runs --limit 0` reads) over a
// store of 1,000 runs.
func BenchmarkList1000Runs(b *testing.B) {
	s := openTest(b, pgtest.URL(b))
	ctx := context.Background()
	t0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	for i := range 1000 {
		run := storetest.NewRun(fmt.Sprintf("suite-%d", i%7), t0.Add(time.Duration(i)*time.Minute))
		w, err := s.Begin(ctx, run)
		if err != nil {
			b.Fatal(err)
		}
		c := storetest.Case("q1", true, 0.5)
		storetest.Complete(run, []assay.CaseResult{c})
		if err := w.Finish(run); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for range b.N {
		list, err := s.List(ctx, store.Filter{})
		if err != nil || len(list) != 1000 {
			b.Fatalf("List = %d, %v", len(list), err)
		}
	}
}
