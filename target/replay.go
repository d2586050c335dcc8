package target

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sync"

	"github.com/assay-eval/assay"
)

// Replay is a target that answers from a recorded trace file (§3): one
// Observation JSON object per line, keyed by "case" and "trial". A case (or
// trial) without a line gives an observation with an error of class missing.
// Blank lines are skipped; a malformed line or a repeated (case, trial) key
// is an error naming file:line.
type Replay struct {
	path string
	obs  map[replayKey]assay.Observation
}

type replayKey struct {
	c string
	t int
}

var _ assay.Target = (*Replay)(nil)

// OpenReplay reads a trace file.
func OpenReplay(path string) (*Replay, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		return nil, fmt.Errorf("replay: %s is a directory, not a trace file (.jsonl)", path)
	}
	r := &Replay{path: path, obs: map[replayKey]assay.Observation{}}
	first := map[replayKey]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 64*1024*1024)
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var o assay.Observation
		dec := json.NewDecoder(bytes.NewReader(b))
		if err := dec.Decode(&o); err != nil {
			return nil, fmt.Errorf("%s:%d: malformed trace line: %s", path, line, jsonErr(err))
		}
		if o.Case == "" {
			return nil, fmt.Errorf("%s:%d: trace line has no \"case\"", path, line)
		}
		if o.Trial < 0 {
			return nil, fmt.Errorf("%s:%d: negative trial %d", path, line, o.Trial)
		}
		k := replayKey{o.Case, o.Trial}
		if at, dup := first[k]; dup {
			return nil, fmt.Errorf("%s:%d: case %q trial %d is already recorded at line %d", path, line, o.Case, o.Trial, at)
		}
		first[k] = line
		r.obs[k] = o
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %v", path, line+1, err)
	}
	return r, nil
}

func jsonErr(err error) string {
	if se, ok := err.(*json.SyntaxError); ok {
		return fmt.Sprintf("%v (at byte %d)", se, se.Offset)
	}
	return err.Error()
}

// Observe returns the recorded observation for the case and the trial in ctx.
func (r *Replay) Observe(ctx context.Context, c assay.Case) (assay.Observation, error) {
	trial := assay.TrialFrom(ctx)
	o, ok := r.obs[replayKey{c.ID, trial}]
	if !ok {
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
