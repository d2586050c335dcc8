package store

import (
	"context"
	"errors"
	"time"

	"github.com/assay-eval/assay"
	"github.com/google/uuid"
)

// Store keeps run records. It is small so that other stores (Postgres) can
// follow; store/storetest runs the same conformance tests against each.
type Store interface {
	// Begin creates runs/<run_id>/ and writes run.json with status
	// "incomplete" (and the index row). A run without a RunID gets a new one
	// (NewRunID); Begin sets run.Schema, run.Status and run.AssayVersion
	// when they are empty.
	Begin(ctx context.Context, run *assay.Run) (RunWriter, error)
	// List returns the indexed runs matching f, newest first.
	List(ctx context.Context, f Filter) ([]Entry, error)
	// Resolve turns a REF (see ResolveRef) into the path of a run.json.
	Resolve(ctx context.Context, ref string) (string, error)
	// Warnings says what opening the store had to repair (data for the
	// caller to show); nil when nothing.
	Warnings() []string
	Close() error
}

// RunWriter records one run while it goes. Its methods are safe for
// concurrent use.
type RunWriter interface {
	// Append writes one line of cases.jsonl (the CaseResult with its
	// Observation). Each line reaches the operating system in one write, so
	// a killed process loses at most the cases still in flight.
	Append(r assay.CaseResult) error
	// Finish writes the final run.json (status as given) by an atomic
	// rename, syncs cases.jsonl and updates the index. It reads the run's
	// cases through run.EachCase, one at a time (once for run.json, again
	// for the index's case rows), so a run whose cases stream from disk is
	// never held whole. An error from the run's CaseStream is returned;
	// when it comes while run.json is written, run.json stays as Begin
	// wrote it.
	Finish(run *assay.Run) error
	// Dir is the run's directory.
	Dir() string
}

// Filter selects runs for List. Zero fields select everything.
type Filter struct {
	Suite  string          // suite name
	Status assay.RunStatus // "complete" or "incomplete"
	Limit  int             // at most this many (0: no limit)
	// ShardGroup selects the shard runs of a group (Run.Shard.Group);
	// NoShards leaves every shard run out (latest names none: a shard is
	// a slice of a run, never a baseline).
	ShardGroup string
	NoShards   bool
}

// Entry is one indexed run, as listed by `assay runs`.
type Entry struct {
	RunID       string          `json:"run_id"`
	Status      assay.RunStatus `json:"status"`
	Suite       string          `json:"suite"`
	Fingerprint string          `json:"fingerprint,omitempty"`
	Target      string          `json:"target"`
	StartedAt   time.Time       `json:"started_at"`
	FinishedAt  time.Time       `json:"finished_at,omitzero"`
	Cases       int             `json:"cases"`
	PassRate    *float64        `json:"pass_rate"`
	// Headline is the first metric of the run's metric set that has a
	// value (ndcg@10 by default), with its mean.
	Headline      string   `json:"headline,omitempty"`
	HeadlineValue *float64 `json:"headline_value,omitempty"`
	// Path is the run's run.json.
	Path string `json:"path"`
	// Shard is the shard of a shard run (Index, Count, Group; no gates),
	// nil for any other run.
	Shard *assay.Shard `json:"shard,omitempty"`
}

// Errors a store returns; test with errors.Is.
var (
	ErrNotFound  = errors.New("no such run")
	ErrAmbiguous = errors.New("ambiguous run reference")
	ErrFinished  = errors.New("run already finished")
)

// NewRunID returns a new run id: a UUIDv7 in lowercase (time-ordered).
func NewRunID() string {
	id, err := uuid.NewV7()
	if err != nil {
		// Only fails when the random source does; fall back to v4, which
		// panics in the same case (nothing else to do).
		return uuid.New().String()
	}
	return id.String()
}

// The names of a run's files in its directory. Cases are appended to
// CasesFile while the run goes; Finish compresses it to CasesGzFile.
const (
	RunFile     = "run.json"
	CasesFile   = "cases.jsonl"
	CasesGzFile = "cases.jsonl.gz"
)
