package report

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/assay-eval/assay"
)

// Progress off a terminal (a CI log): plain lines, so that a CI system
// that kills a job silent for minutes does not kill a long run, and few of
// them, so that the log stays readable.
const (
	// ProgressQuiet is how long a run goes before its first line: a run
	// that ends sooner needs no keep-alive, its summary follows at once.
	ProgressQuiet = 10 * time.Second
	// ProgressEvery is the longest gap between two lines of a run.
	ProgressEvery = 30 * time.Second
)

// ProgressLines writes the progress of a run as plain lines,
//
//	assay: progress 120/1200 cases (10%)  passed 97  failed 20  errors 3  elapsed 41s
//
// one when the count crosses a tenth of the total or ProgressEvery after
// the last line, whichever comes first, and none in the first
// ProgressQuiet. passed and failed count graded trials, errors the trials
// whose observation failed (also counted failed when graded). It takes the
// clock; Observe and Tick may be called from different goroutines.
type ProgressLines struct {
	mu       sync.Mutex
	w        io.Writer
	now      func() time.Time
	total    int
	start    time.Time
	last     time.Time // of the last line (start before the first)
	lastStep int       // tenths reached at the last line
	done     int
	passed   int
	failed   int
	errors   int
}

// NewProgressLines starts the progress of a run of total trials at now().
func NewProgressLines(w io.Writer, total int, now func() time.Time) *ProgressLines {
	t := now()
	return &ProgressLines{w: w, now: now, total: total, start: t, last: t}
}

// Observe counts one graded trial and writes a line when one is due.
func (p *ProgressLines) Observe(r assay.CaseResult) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	switch {
	case r.Passed():
		p.passed++
	case r.Graded():
		p.failed++
	}
	if r.Error != nil {
		p.errors++
	}
	p.maybeLine(p.step() > p.lastStep)
}

// Tick writes a line when ProgressEvery has passed since the last one (a
// run stuck on slow cases still shows it is alive). Call it on a timer.
func (p *ProgressLines) Tick() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.maybeLine(false)
}

// Every calls Tick every d until the returned stop is called.
func (p *ProgressLines) Every(d time.Duration) (stop func()) {
	t := time.NewTicker(d)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-t.C:
				p.Tick()
			case <-done:
				return
			}
		}
	}()
	var once sync.Once
	return func() { once.Do(func() { t.Stop(); close(done) }) }
}

func (p *ProgressLines) step() int {
	if p.total <= 0 {
		return 0
	}
	return p.done * 10 / p.total
}

func (p *ProgressLines) maybeLine(stepped bool) {
	now := p.now()
	if now.Sub(p.start) < ProgressQuiet {
		return
	}
	if !stepped && now.Sub(p.last) < ProgressEvery {
		return
	}
	pct := 0
	if p.total > 0 {
		pct = p.done * 100 / p.total
	}
	fmt.Fprintf(p.w, "assay: progress %d/%d cases (%d%%)  passed %d  failed %d  errors %d  elapsed %s\n",
		p.done, p.total, pct, p.passed, p.failed, p.errors, now.Sub(p.start).Truncate(time.Second))
	p.last, p.lastStep = now, p.step()
}
