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
type Replay struct {
	path string
	obs  map[replayKey]assay.Observation
}

type replayKey struct {
	c    string
	t    int
	turn int
}

var _ assay.Target = (*Replay)(nil)

// maxLatencyMs bounds a recorded latency: a week, far beyond any timeout.
const maxLatencyMs = 7 * 24 * 3600 * 1000

// OpenReplay reads a trace file.
func OpenReplay(path string) (*Replay, error) {
	obs, err := ReadTrace(path)
	if err != nil {
		return nil, err
	}
	r := &Replay{path: path, obs: make(map[replayKey]assay.Observation, len(obs))}
	for _, o := range obs {
		r.obs[replayKey{o.Case, o.Trial, o.Turn}] = o
	}
	return r, nil
}

// ReadTrace reads the observations of a trace file in file order (see
// Replay for what is an error).
func ReadTrace(path string) ([]assay.Observation, error) {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return nil, fmt.Errorf("replay: %s is a directory, not a trace file (.jsonl)", path)
	}
	f, err := boundedfile.Open(path, boundedfile.Trace)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	defer f.Close()
	var out []assay.Observation
	first := map[replayKey]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), boundedfile.MaxLine)
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		if e := nesting.JSON(b); e != nil {
			return nil, diag.Errorf(path, line, e.Col, "malformed trace line: %s", e.Msg)
		}
		var o assay.Observation
		dec := json.NewDecoder(bytes.NewReader(b))
		if err := dec.Decode(&o); err != nil {
			col, msg := diag.JSON(err)
			return nil, diag.Errorf(path, line, col, "malformed trace line: %s", msg)
		}
		if o.Case == "" {
			return nil, diag.Errorf(path, line, 0, "trace line has no \"case\"")
		}
		if o.Trial < 0 {
			return nil, diag.Errorf(path, line, 0, "negative trial %d", o.Trial)
		}
		if o.LatencyMs != nil && (*o.LatencyMs < 0 || math.IsNaN(*o.LatencyMs) || *o.LatencyMs > maxLatencyMs) {
			return nil, diag.Errorf(path, line, 0, "latency_ms %v is not a duration (want 0 to %g ms)", *o.LatencyMs, float64(maxLatencyMs))
		}
		if o.LatencyTotalMs != nil && (*o.LatencyTotalMs < 0 || math.IsNaN(*o.LatencyTotalMs) || *o.LatencyTotalMs > maxLatencyMs) {
			return nil, fmt.Errorf("%s:%d: latency_total_ms %v is not a duration (want 0 to %g ms)", path, line, *o.LatencyTotalMs, float64(maxLatencyMs))
		}
		if o.Attempts < 0 {
			return nil, fmt.Errorf("%s:%d: negative attempts %d", path, line, o.Attempts)
		}
		if o.Turn < 0 {
			return nil, diag.Errorf(path, line, 0, "negative turn %d", o.Turn)
		}
		k := replayKey{o.Case, o.Trial, o.Turn}
		if at, dup := first[k]; dup {
			if o.Turn > 0 {
				return nil, diag.Errorf(path, line, 0, "case %q trial %d turn %d is already recorded at line %d", o.Case, o.Trial, o.Turn, at)
			}
			return nil, diag.Errorf(path, line, 0, "case %q trial %d is already recorded at line %d", o.Case, o.Trial, at)
		}
		first[k] = line
		out = append(out, o)
	}
	if err := sc.Err(); err != nil {
		return nil, diag.Errorf(path, line+1, 0, "%v", boundedfile.ScanErr(err, boundedfile.MaxLine))
	}
	return out, nil
}

// Observe returns the recorded observation for the case and the trial in
// ctx; for a turn of a conversation (c.Turn > 0), the line of that turn
// (its "turn" number).
func (r *Replay) Observe(ctx context.Context, c assay.Case) (assay.Observation, error) {
	trial := assay.TrialFrom(ctx)
	o, ok := r.obs[replayKey{c.ID, trial, c.Turn}]
	if !ok {
		if c.Turn > 0 {
			return assay.Observation{}, assay.Errorf(assay.ErrMissing, "%s has no line for case %q trial %d turn %d", r.path, c.ID, trial, c.Turn)
		}
		return assay.Observation{}, assay.Errorf(assay.ErrMissing, "%s has no line for case %q trial %d", r.path, c.ID, trial)
	}
	return o, nil
}

// Describe names the trace file.
func (r *Replay) Describe() assay.TargetInfo {
	return assay.TargetInfo{Kind: "replay", Spec: "replay:" + r.path, Config: map[string]any{"file": r.path, "observations": len(r.obs)}}
}

// Recorder writes observations in the trace format, one JSON object per
// line, safe for concurrent use. Every line is flushed as it is written so
// an interrupted run keeps what it observed.
type Recorder struct {
	mu sync.Mutex
	f  *os.File
	w  *bufio.Writer
}

// NewRecorder creates (truncates) path.
func NewRecorder(path string) (*Recorder, error) {
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
