package assay

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/assay-eval/assay/redact"
)

// Version is the assay version recorded in every run. The CLI may override it
// at link time (-ldflags "-X github.com/assay-eval/assay.Version=...").
var Version = "0.1.0-dev"

// Schema names of the JSON documents assay writes.
const (
	RunSchema     = "assay.run/v1"
	CompareSchema = "assay.compare/v1"
)

// A Target is the system under test. It must be safe for concurrent use.
//
// A returned error means the harness could not obtain an observation
// (transport failure, timeout, malformed response): the case is recorded with
// an error class and counts as not passed; the run goes on. Targets should
// return an *Error (or wrap one) so the class is known; any other error is
// classed as transport.
type Target interface {
	Observe(ctx context.Context, c Case) (Observation, error)
}

// TargetFunc adapts a function to the Target interface.
type TargetFunc func(ctx context.Context, c Case) (Observation, error)

// Observe calls f.
func (f TargetFunc) Observe(ctx context.Context, c Case) (Observation, error) { return f(ctx, c) }

// Describer is the optional capability of a Target that can say what it is.
type Describer interface {
	Describe() TargetInfo
}

// Describe returns t's description, or one naming only its kind: the part
// of spec (the name it was opened by) before the first colon.
func Describe(t Target, spec string) TargetInfo {
	if d, ok := t.(Describer); ok {
		return d.Describe()
	}
	kind, _, _ := strings.Cut(spec, ":")
	return TargetInfo{Kind: kind, Spec: spec}
}

// Setupper is the optional capability of a Target that must prepare the
// system once per run. The runner calls Setup before the first case; an
// error stops the run (a harness error, exit 2).
type Setupper interface {
	Setup(ctx context.Context) error
}

// Measurer is the optional capability of a Target that reports run-level
// measures, e.g. the size of the index it built and how long that took:
// {"index_bytes": 1.2e6, "build_ms": 830}. The runner reads Measures once,
// after the last case, into Run.Measures, where gates name them bare
// (index_bytes <= 1e9, ratio(build_ms) <= 1.1). Names follow
// IsMeasureName.
type Measurer interface {
	Measures() map[string]float64
}

// Cleaner is the optional capability of a Target that must undo what a case
// did. The runner calls Cleanup after the case is graded, also when the
// observation failed; an error is a warning of the run, not a case failure.
type Cleaner interface {
	Cleanup(ctx context.Context, c Case, obs Observation) error
}

// SecretHolder is the optional capability of a Target that holds secrets
// (what it expanded from the environment, and the forms derived from
// them): everything kept or shown of a run of it is redacted with them.
type SecretHolder interface {
	Secrets() []redact.Secret
}

// TargetInfo describes a target for the run record. Config must already be
// redacted: no secret may appear in it.
type TargetInfo struct {
	Kind        string            `json:"kind"`
	Spec        string            `json:"spec,omitempty"`
	Config      map[string]any    `json:"config,omitempty"`
	Fingerprint string            `json:"fingerprint,omitempty"`
	Versions    map[string]string `json:"versions,omitempty"`
}

type trialKey struct{}

// WithTrial returns a context that carries the trial number (0-based) of the
// observation being made. The runner sets it; targets such as replay read it.
func WithTrial(ctx context.Context, trial int) context.Context {
	return context.WithValue(ctx, trialKey{}, trial)
}

// TrialFrom returns the trial number carried by ctx, or 0.
func TrialFrom(ctx context.Context) int {
	if v, ok := ctx.Value(trialKey{}).(int); ok {
		return v
	}
	return 0
}

// Duration is a time.Duration that reads and writes as a Go duration string.
type Duration time.Duration

// MarshalText writes the duration as "1.5s".
func (d Duration) MarshalText() ([]byte, error) { return []byte(time.Duration(d).String()), nil }

// UnmarshalText reads a Go duration string.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return err
	}
	*d = Duration(v)
	return nil
}

// RawJSON is kept verbatim (tool arguments, usage blocks).
type RawJSON = json.RawMessage
