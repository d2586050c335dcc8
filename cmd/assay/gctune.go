package main

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// The collector's settings for assay run when the user set neither GOGC nor
// GOMEMLIMIT. A streaming run keeps little alive (a line, a window of
// results, the report's aggregates: 10–20 MiB), so the default GOGC=100
// runs the collector every few megabytes allocated; at runGCPercent it runs
// a third as often: 15% less CPU for a 10,000-case run without the store.
// The soft limit keeps the memory of a large streaming run within its
// bounds (a 100,000-case replay: 55 MiB, against 64 MiB). A run that
// keeps more alive (a large in-memory corpus, a baseline) is never held
// tighter than the default: after each collection the limit is raised to
// twice the live heap plus runGCSlack, which is where GOGC=100 would
// collect.
const (
	runGCPercent   = 200
	runMemoryLimit = 40 << 20
	runGCSlack     = 8 << 20
)

// runGCTuning applies the settings above unless getenv reports GOGC or
// GOMEMLIMIT set, and returns the function that restores the previous ones.
func runGCTuning(getenv func(string) string) (restore func()) {
	if getenv("GOGC") != "" || getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	t := &gcTuner{pct: debug.SetGCPercent(runGCPercent), limit: debug.SetMemoryLimit(runMemoryLimit)}
	t.arm()
	return t.stop
}

// gcTuner raises the soft memory limit after each collection to where
// GOGC=100 would have collected, when that is above runMemoryLimit.
type gcTuner struct {
	mu      sync.Mutex
	stopped bool
	pct     int   // restored by stop
	limit   int64 // restored by stop
	sample  [1]metrics.Sample
}

// gcSentinel is garbage at once; its finalizer runs after each collection
// and sets itself again until the tuner stops.
type gcSentinel struct{ t *gcTuner }

func (t *gcTuner) arm() {
	runtime.SetFinalizer(&gcSentinel{t: t}, (*gcSentinel).collected)
}

func (s *gcSentinel) collected() {
	if s.t.adjust() {
		runtime.SetFinalizer(s, (*gcSentinel).collected)
	}
}

// adjust sets the limit from the live heap the last collection left and
// reports whether the tuner still runs.
func (t *gcTuner) adjust() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stopped {
		return false
	}
	t.sample[0].Name = "/gc/heap/live:bytes"
	metrics.Read(t.sample[:])
	if t.sample[0].Value.Kind() != metrics.KindUint64 {
		return true
	}
	debug.SetMemoryLimit(gcLimitFor(t.sample[0].Value.Uint64()))
	return true
}

// gcLimitFor is the soft memory limit for a live heap of live bytes.
func gcLimitFor(live uint64) int64 {
	l := int64(min(live, 1<<50))*2 + runGCSlack
	return max(l, runMemoryLimit)
}

func (t *gcTuner) stop() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.stopped = true
	debug.SetGCPercent(t.pct)
	debug.SetMemoryLimit(t.limit)
}
