package ui

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/assay-eval/assay"
)

// The filtered case table of a run not loaded yet (one pass over its
// case lines, store.ReadRunCaseLines) shows exactly the rows, counts and
// pages of the same table once the run is loaded: every status filter,
// a tag, both, first, middle, last and past-the-end pages, each sort.
// 200 cases make 10 pages of 20: the last is page 10.
func TestFilteredRowsColdMatchLoaded(t *testing.T) {
	st := benchStore(t)
	run := synthRunOf(t, st, 200, 2, false, func(r *assay.Run) {
		for i := range r.Cases {
			switch i % 17 {
			case 3:
				r.Cases[i].Pass = nil
			case 5:
				r.Cases[i].Error = &assay.Error{Class: "timeout", Message: fmt.Sprintf("no answer in %d ms", i)}
				r.Cases[i].Pass = nil
				r.Cases[i].LatencyMs = nil
				r.Cases[i].Metrics = nil
			case 7:
				r.Cases[i].Error = &assay.Error{Class: "http", Message: "502"}
			}
		}
	})
	const size = 20
	warm := New(st, Options{PageSize: size})
	if _, err := warm.(*server).src.load(context.Background(), run.RunID); err != nil {
		t.Fatal(err)
	}
	var queries []string
	for _, status := range []string{"", "failing", "errored", "ungraded", "passing"} {
		for _, tag := range []string{"", "lang=de", "category=c3", "lang=xx"} {
			for _, page := range []string{"", "2", "3", "10", "999"} {
				q := url.Values{}
				for k, v := range map[string]string{"status": status, "tag": tag, "page": page} {
					if v != "" {
						q.Set(k, v)
					}
				}
				if len(q) > 0 {
					queries = append(queries, "?"+q.Encode())
				}
			}
		}
	}
	for _, sort := range []string{"latency", "-latency", "status", "-status", "mrr", "-ndcg@10", "id", "-id"} {
		for _, filter := range []string{"", "status=failing&", "status=passing&tag=lang%3Dde&", "tag=category%3Dc3&"} {
			for _, page := range []string{"", "&page=2", "&page=999"} {
				queries = append(queries, "?"+filter+"sort="+url.QueryEscape(sort)+page)
			}
		}
	}
	for _, q := range queries {
		cold := New(st, Options{PageSize: size})
		want := body(t, warm, "/run/"+run.RunID+q)
		got := body(t, cold, "/run/"+run.RunID+q)
		if got != want {
			t.Errorf("%s: the page of the run not loaded differs from the loaded run's:\n%s", q, firstDiff(got, want))
		}
	}
	// The pages above came from the pass over the case lines: a new
	// server answers a filter without the run.
	s := New(st, Options{PageSize: size}).(*server)
	q, _ := url.ParseQuery("status=passing&tag=lang=de")
	f := caseFilter{Status: q.Get("status"), Tag: q.Get("tag")}
	c, n, ok, err := s.src.filtered(context.Background(), run.RunID, f, 2, size)
	if err != nil || !ok {
		t.Fatalf("filtered: ok %v, err %v", ok, err)
	}
	keep := f.keep(nil, nil)
	total, all := 0, 0
	for _, cr := range run.Cases {
		all++
		if keep(cr) {
			total++
		}
	}
	rows := min(size, total-size)
	if n.total != total || n.all != all || len(c.run.Cases) != rows || rows <= 0 {
		t.Errorf("filtered: %d of %d, %d rows; want %d of %d, %d rows", n.total, n.all, len(c.run.Cases), total, all, rows)
	}
}

// A sorted table of a run not loaded yet is made by the pass too, its
// ties in run order.
func TestFilteredSortedCold(t *testing.T) {
	st := benchStore(t)
	id := synthRun(t, st, 500, 1, false)
	s := New(st, Options{PageSize: 20}).(*server)
	c, n, ok, err := s.src.filtered(context.Background(), id, caseFilter{Status: "passing", Sort: "-latency"}, 1, 20)
	if err != nil || !ok || n.all != 500 || n.total != 450 || len(c.run.Cases) != 20 {
		t.Fatalf("filtered: ok %v, err %v, %+v", ok, err, n)
	}
	for i, cr := range c.run.Cases {
		if !cr.Passed() || i > 0 && *cr.LatencyMs > *c.run.Cases[i-1].LatencyMs {
			t.Errorf("row %d: %s latency %v: not passing, or not slowest first", i, cr.ID, *cr.LatencyMs)
		}
		if i > 0 && *cr.LatencyMs == *c.run.Cases[i-1].LatencyMs && cr.ID < c.run.Cases[i-1].ID {
			t.Errorf("row %d: %s after %s: ties not in run order", i, cr.ID, c.run.Cases[i-1].ID)
		}
	}
}

// firstDiff shows where two pages first differ.
func firstDiff(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	lo := max(0, i-200)
	return "got:  " + strings.TrimSpace(a[lo:min(len(a), i+200)]) + "\nwant: " + strings.TrimSpace(b[lo:min(len(b), i+200)])
}
