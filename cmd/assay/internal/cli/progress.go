package cli

import (
	"fmt"
	"io"
	"time"

	"github.com/assay-eval/assay/harness"

	"github.com/assay-eval/assay/report"
	"github.com/schollz/progressbar/v3"
)

// Progress shows the progress events of runs (Plan.OnEvent) on w: a
// progress bar when w is a terminal (the caller says so: progressbar does
// not tell a pipe from one), plain report.ProgressLines every second
// elsewhere (a CI log), nothing for a run of fewer than two cases on a
// terminal.
type Progress struct {
	w        io.Writer
	terminal bool
	now      func() time.Time
	bar      *progressbar.ProgressBar
	lines    *report.ProgressLines
	stop     func()
}

// NewProgress returns the progress of runs shown on w; now is the clock
// of the lines.
func NewProgress(w io.Writer, terminal bool, now func() time.Time) *Progress {
	return &Progress{w: w, terminal: terminal, now: now, stop: func() {}}
}

// OnEvent shows one event; it is what Plan.OnEvent is set to.
func (p *Progress) OnEvent(e harness.Event) {
	switch e.Kind {
	case harness.Started:
		p.stop()
		p.bar, p.lines = nil, nil
		switch {
		case p.terminal && e.Total >= 2:
			p.bar = progressbar.NewOptions(e.Total,
				progressbar.OptionSetWriter(p.w),
				progressbar.OptionSetDescription("cases"),
				progressbar.OptionShowCount(),
				progressbar.OptionClearOnFinish(),
				progressbar.OptionThrottle(100*time.Millisecond),
			)
		case !p.terminal:
			p.lines = report.NewProgressLines(p.w, e.Total, p.now)
			p.stop = p.lines.Every(time.Second)
		}
	case harness.Observed:
		if p.bar != nil {
			p.bar.Add(1)
		} else if p.lines != nil && e.Result != nil {
			p.lines.Observe(*e.Result)
		}
	case harness.Finished:
		p.Stop()
		if p.bar != nil {
			p.bar.Finish()
			fmt.Fprintln(p.w)
		}
	}
}

// Stop stops the lines of the current run; call it when the runs end.
func (p *Progress) Stop() { p.stop() }
