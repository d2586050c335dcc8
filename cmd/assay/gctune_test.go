package main

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// TestRunGCTuning: assay run collects less often only when the user left
// the collector alone, and puts the settings back when it returns.
func TestRunGCTuning(t *testing.T) {
	pct, limit := gcPercent(), debug.SetMemoryLimit(-1)
	for _, v := range []string{"GOGC", "GOMEMLIMIT"} {
		restore := runGCTuning(func(k string) string {
			if k == v {
				return "100"
			}
			return ""
		})
		if p, l := gcPercent(), debug.SetMemoryLimit(-1); p != pct || l != limit {
			t.Errorf("%s set: GC percent %d, limit %d; want the user's %d, %d", v, p, l, pct, limit)
		}
		restore()
	}
	restore := runGCTuning(func(string) string { return "" })
	if p, l := gcPercent(), debug.SetMemoryLimit(-1); p != runGCPercent || l != runMemoryLimit {
		t.Errorf("neither set: GC percent %d, limit %d; want %d, %d", p, l, runGCPercent, runMemoryLimit)
	}
	restore()
	if p, l := gcPercent(), debug.SetMemoryLimit(-1); p != pct || l != limit {
		t.Errorf("restored: GC percent %d, limit %d; want %d, %d", p, l, pct, limit)
	}
}

// TestRunGCLimitFollowsALargeLiveHeap: a run that keeps more alive than the
// soft limit allows is not made to collect more often than GOGC=100 would:
// after a collection the limit is at least twice the live heap.
func TestRunGCLimitFollowsALargeLiveHeap(t *testing.T) {
	if got := gcLimitFor(4 << 20); got != runMemoryLimit {
		t.Errorf("gcLimitFor(4 MiB) = %d, want %d", got, runMemoryLimit)
	}
	if got, want := gcLimitFor(100<<20), int64(200<<20+runGCSlack); got != want {
		t.Errorf("gcLimitFor(100 MiB) = %d, want %d", got, want)
	}
	restore := runGCTuning(func(string) string { return "" })
	defer restore()
	live := make([]byte, 64<<20)
	for i := range live {
		live[i] = byte(i)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		runtime.GC()
		if debug.SetMemoryLimit(-1) >= 2*int64(len(live)) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("limit %d after collections with %d bytes live, want at least twice that", debug.SetMemoryLimit(-1), len(live))
		}
		time.Sleep(10 * time.Millisecond)
	}
	runtime.KeepAlive(live)
	// Once the live heap is gone, the limit comes back down.
	live = nil
	for {
		runtime.GC()
		if debug.SetMemoryLimit(-1) < 64<<20 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("limit %d after the live heap was freed, want %d", debug.SetMemoryLimit(-1), runMemoryLimit)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
