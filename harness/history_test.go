package harness_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/harness"
	"github.com/assay-eval/assay/store"
)

func TestHistoryPicksEarlierRunsOfTheSameSystem(t *testing.T) {
	ctx := context.Background()
	st := openStore(t, t.TempDir())
	start := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	save := func(n int, target string, status assay.RunStatus) *assay.Run {
		pass := true
		r := &assay.Run{RunID: fmt.Sprintf("0193a1b2-0000-7000-8000-%012d", n), StartedAt: start.Add(time.Duration(n) * time.Minute),
			Suite:  assay.SuiteRef{Name: "kb", Fingerprint: "sha256:kb"},
			Target: assay.TargetInfo{Kind: "http", Fingerprint: target},
			Cases:  []assay.CaseResult{{ID: "q1", Pass: &pass}}}
		w, err := st.Begin(ctx, r)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range r.Cases {
			if err := w.Append(c); err != nil {
				t.Fatal(err)
			}
		}
		r.Status = status
		if err := w.Finish(r); err != nil {
			t.Fatal(err)
		}
		return r
	}
	save(1, "sha256:a", assay.StatusComplete)
	save(2, "sha256:b", assay.StatusComplete)   // another target
	save(3, "sha256:a", assay.StatusIncomplete) // never history
	save(4, "sha256:a", assay.StatusComplete)
	base := save(5, "sha256:a", assay.StatusComplete)
	save(6, "sha256:a", assay.StatusComplete)
	cand := save(7, "sha256:a", assay.StatusComplete)
	save(8, "sha256:a", assay.StatusComplete) // after the candidate

	ids := func(rs []*assay.Run) []string {
		var out []string
		for _, r := range rs {
			out = append(out, r.RunID[len(r.RunID)-1:])
		}
		return out
	}
	if got, want := ids(harness.History(ctx, st, base, cand, 0)), []string{"6", "4", "1"}; !slices.Equal(got, want) {
		t.Fatalf("History = runs %v, want %v (newest first, same target, complete, not after the candidate)", got, want)
	}
	// A run of another system is told apart by its header: History loads
	// whole (cases and all) only the runs it keeps.
	ls := &loadCounter{Store: st}
	if got := ids(harness.History(ctx, ls, base, cand, 0)); !slices.Equal(got, []string{"6", "4", "1"}) {
		t.Fatalf("History through a counting store = runs %v, want [6 4 1]", got)
	}
	if got := ids(ls.loaded); !slices.Equal(got, []string{"6", "4", "1"}) {
		t.Fatalf("History loaded runs %v whole, want only those it keeps [6 4 1]", got)
	}
	if got := ids(harness.History(ctx, st, base, cand, 2)); !slices.Equal(got, []string{"6", "4"}) {
		t.Fatalf("History limit 2 = runs %v, want [6 4]", got)
	}
	if got := harness.History(ctx, st, base, cand, -1); got != nil {
		t.Fatalf("History limit -1 = %d runs, want none", len(got))
	}
	if got := harness.History(ctx, nil, base, cand, 0); got != nil {
		t.Fatalf("History without a store = %d runs, want none", len(got))
	}
}

// loadCounter records the runs loaded whole through it; it passes on the
// run files of the store it wraps, so headers are read from them.
type loadCounter struct {
	store.Store
	loaded []*assay.Run
}

func (l *loadCounter) Load(ctx context.Context, ref string) (*assay.Run, error) {
	r, err := l.Store.Load(ctx, ref)
	if err == nil {
		l.loaded = append(l.loaded, r)
	}
	return r, err
}

func (l *loadCounter) RunFile(id string) string {
	return l.Store.(store.RunFiler).RunFile(id)
}
