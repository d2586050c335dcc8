package target

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"sync"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/internal/boundedfile"
	"github.com/assay-eval/assay/internal/diag"
	"github.com/assay-eval/assay/internal/nesting"
)

// Replay is a target that answers from a recorded trace file (docs/observations.md): one
// Observation JSON object per line, keyed by "case" and "trial". A case (or
// trial) without a line gives an observation with an error of class missing.
// Blank lines are skipped; a malformed line or a repeated (case, trial) key
// is an error naming file:line:col.
//
// OpenReplay reads the file once, checking every line, and keeps where
// each line is (its key, byte offset and length), not its observation:
// Observe reads and decodes the case's line when the case runs. What a
// replay holds grows by a few dozen bytes per line whatever the
// observations hold, and a trace in any order replays alike. The file
// stays open until Close.
type Replay struct {
	path  string
	f     *os.File
	index map[replayKey]lineRef
}

type replayKey struct {
	c    string
	t    int
	turn int
}

// lineRef is where a trace line is: its number, and its bytes (newline
// excluded) at off.
type lineRef struct {
	off  int64
	n    int
	line int
}

var _ assay.Target = (*Replay)(nil)

// maxLatencyMs bounds a recorded latency: a week, far beyond any timeout.
const maxLatencyMs = 7 * 24 * 3600 * 1000

// OpenReplay reads a trace file, checking every line, and opens it for
// the cases to read their lines from.
func OpenReplay(path string) (*Replay, error) {
	index, err := scanTrace(path, nil)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	return &Replay{path: path, f: f, index: index}, nil
}

// ReadTrace reads the observations of a trace file in file order (see
// Replay for what is an error).
func ReadTrace(path string) ([]assay.Observation, error) {
	var out []assay.Observation
	if _, err := scanTrace(path, func(o assay.Observation) { out = append(out, o) }); err != nil {
		return nil, err
	}
	return out, nil
}

// scanTrace reads a trace file in one pass, checking every line and
// calling each (when not nil) with each observation in file order, and
// returns where each key's line is.
func scanTrace(path string, each func(assay.Observation)) (map[replayKey]lineRef, error) {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return nil, fmt.Errorf("replay: %s is a directory, not a trace file (.jsonl)", path)
	}
	f, err := boundedfile.Open(path, boundedfile.Trace)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	defer f.Close()
	index := map[replayKey]lineRef{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), boundedfile.MaxLine)
	// The split records where each line starts: the scanner's token is the
	// line without its newline (and without a final carriage return).
	var start, next int64
	sc.Split(func(data []byte, atEOF bool) (int, []byte, error) {
		adv, tok, err := bufio.ScanLines(data, atEOF)
		if tok != nil {
			start = next
		}
		next += int64(adv)
		return adv, tok, err
	})
	line := 0
	for sc.Scan() {
		line++
		raw := sc.Bytes()
		b := bytes.TrimSpace(raw)
		if len(b) == 0 {
			continue
		}
		o, err := decodeTraceLine(path, line, b)
		if err != nil {
			return nil, err
		}
		k := replayKey{o.Case, o.Trial, o.Turn}
		if at, dup := index[k]; dup {
			if o.Turn > 0 {
				return nil, diag.Errorf(path, line, 0, "case %q trial %d turn %d is already recorded at line %d", o.Case, o.Trial, o.Turn, at.line)
			}
			return nil, diag.Errorf(path, line, 0, "case %q trial %d is already recorded at line %d", o.Case, o.Trial, at.line)
		}
		index[k] = lineRef{off: start, n: len(raw), line: line}
		if each != nil {
			each(o)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, diag.Errorf(path, line+1, 0, "%v", boundedfile.ScanErr(err, boundedfile.MaxLine))
	}
	return index, nil
}

// decodeTraceLine decodes and checks one non-blank trace line.
func decodeTraceLine(path string, line int, b []byte) (assay.Observation, error) {
	var o assay.Observation
	if e := nesting.JSON(b); e != nil {
		return o, diag.Errorf(path, line, e.Col, "malformed trace line: %s", e.Msg)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&o); err != nil {
		col, msg := diag.JSON(err)
		return o, diag.Errorf(path, line, col, "malformed trace line: %s", msg)
	}
	if o.Case == "" {
		return o, diag.Errorf(path, line, 0, "trace line has no \"case\"")
	}
	if o.Trial < 0 {
		return o, diag.Errorf(path, line, 0, "negative trial %d", o.Trial)
	}
	if o.LatencyMs != nil && (*o.LatencyMs < 0 || math.IsNaN(*o.LatencyMs) || *o.LatencyMs > maxLatencyMs) {
		return o, diag.Errorf(path, line, 0, "latency_ms %v is not a duration (want 0 to %g ms)", *o.LatencyMs, float64(maxLatencyMs))
	}
	if o.LatencyTotalMs != nil && (*o.LatencyTotalMs < 0 || math.IsNaN(*o.LatencyTotalMs) || *o.LatencyTotalMs > maxLatencyMs) {
		return o, fmt.Errorf("%s:%d: latency_total_ms %v is not a duration (want 0 to %g ms)", path, line, *o.LatencyTotalMs, float64(maxLatencyMs))
	}
	if o.Attempts < 0 {
		return o, fmt.Errorf("%s:%d: negative attempts %d", path, line, o.Attempts)
	}
	if o.Turn < 0 {
		return o, diag.Errorf(path, line, 0, "negative turn %d", o.Turn)
	}
	return o, nil
}

// Observe returns the recorded observation for the case and the trial in
// ctx; for a turn of a conversation (c.Turn > 0), the line of that turn
// (its "turn" number). The line is read from the file now; a file changed
// since OpenReplay read it is an error naming the line.
func (r *Replay) Observe(ctx context.Context, c assay.Case) (assay.Observation, error) {
	trial := assay.TrialFrom(ctx)
	k := replayKey{c.ID, trial, c.Turn}
	at, ok := r.index[k]
	if !ok {
		if c.Turn > 0 {
			return assay.Observation{}, assay.Errorf(assay.ErrMissing, "%s has no line for case %q trial %d turn %d", r.path, c.ID, trial, c.Turn)
		}
		return assay.Observation{}, assay.Errorf(assay.ErrMissing, "%s has no line for case %q trial %d", r.path, c.ID, trial)
	}
	b := make([]byte, at.n)
	if _, err := r.f.ReadAt(b, at.off); err != nil {
		return assay.Observation{}, fmt.Errorf("%s:%d: %w (the file changed during the run?)", r.path, at.line, err)
	}
	o, err := decodeTraceLine(r.path, at.line, bytes.TrimSpace(b))
	if err != nil {
		return assay.Observation{}, err
	}
	if (replayKey{o.Case, o.Trial, o.Turn}) != k {
		return assay.Observation{}, fmt.Errorf("%s:%d: the line is no longer case %q trial %d (the file changed during the run?)", r.path, at.line, c.ID, trial)
	}
	return o, nil
}

// Close closes the trace file.
func (r *Replay) Close() error { return r.f.Close() }

// Describe names the trace file.
func (r *Replay) Describe() assay.TargetInfo {
	return assay.TargetInfo{Kind: "replay", Spec: "replay:" + r.path, Config: map[string]any{"file": r.path, "observations": len(r.index)}}
}

// Recorder writes observations in the trace format, one JSON object per
// line, safe for concurrent use. Every line is flushed as it is written so
// an interrupted run keeps what it observed.
type Recorder struct {
	mu sync.Mutex
	f  *os.File
	w  *bufio.Writer
}

// NewRecorder creates path, replacing a regular file there with a new
// one rather than truncating it: a run may record into the trace it
// replays, and the replay reads each case's line from the old file as the
// case runs (it holds it open), which truncating would empty under it.
func NewRecorder(path string) (*Recorder, error) {
	if fi, err := os.Lstat(path); err == nil && fi.Mode().IsRegular() {
		os.Remove(path) // when it fails, Create truncates the file as before
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("record: %w", err)
	}
	return &Recorder{f: f, w: bufio.NewWriter(f)}, nil
}

// Write appends one observation.
func (r *Recorder) Write(o assay.Observation) error {
	b, err := json.Marshal(o)
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.w.Write(b)
	r.w.WriteByte('\n')
	return r.w.Flush()
}

// Close flushes and closes the file.
func (r *Recorder) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	err := r.w.Flush()
	if cerr := r.f.Close(); err == nil {
		err = cerr
	}
	return err
}
