package harness

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/store"
)

// A run's gates and its comparison weigh flips against the same earlier
// runs: they are loaded once for both (the second use takes them), not
// twice, which held two copies of up to five whole runs at once.
func TestHistoryLoadedOnceForGatesAndComparison(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(t.TempDir(), store.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	start := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	save := func(n int) *assay.Run {
		pass := true
		r := &assay.Run{RunID: fmt.Sprintf("0193a1b2-0000-7000-8000-%012d", n), StartedAt: start.Add(time.Duration(n) * time.Minute),
			Suite:  assay.SuiteRef{Name: "kb", Fingerprint: "sha256:kb"},
			Target: assay.TargetInfo{Kind: "http", Fingerprint: "sha256:a"},
			Cases:  []assay.CaseResult{{ID: "q1", Pass: &pass}}}
		w, err := st.Begin(ctx, r)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Append(r.Cases[0]); err != nil {
			t.Fatal(err)
		}
		r.Status = assay.StatusComplete
		if err := w.Finish(r); err != nil {
			t.Fatal(err)
		}
		return r
	}
	save(1)
	save(2)
	base := save(3)
	run := save(4)
	other := save(5)
	lc := &loadCount{Store: st}
	ss := &session{f: &Plan{}, st: lc}
	gates := ss.history(ctx, base, run)
	if len(gates) != 2 || lc.n != 2 {
		t.Fatalf("first use: %d earlier runs, %d loads; want 2 and 2", len(gates), lc.n)
	}
	cmp := ss.history(ctx, base, run)
	if lc.n != 2 {
		t.Fatalf("the comparison loaded the history again: %d loads in all, want 2", lc.n)
	}
	if len(cmp) != len(gates) || cmp[0] != gates[0] || cmp[1] != gates[1] {
		t.Fatalf("the comparison's history is not the gates': %v, want %v", cmp, gates)
	}
	if len(ss.hist) != 0 {
		t.Fatalf("the history is still held after its second use (%d entries)", len(ss.hist))
	}
	// Another run (a matrix variant) has a history of its own.
	if h := ss.history(ctx, base, other); len(h) != 3 || lc.n != 5 {
		t.Fatalf("another run: %d earlier runs, %d loads in all; want 3 and 5", len(h), lc.n)
	}
}

// loadCount counts the runs loaded whole through it; it passes on the run
// files of the store it wraps, so headers are read from them.
type loadCount struct {
	store.Store
	n int
}

func (l *loadCount) Load(ctx context.Context, ref string) (*assay.Run, error) {
	l.n++
	return l.Store.Load(ctx, ref)
}

func (l *loadCount) RunFile(id string) string { return l.Store.(store.RunFiler).RunFile(id) }
