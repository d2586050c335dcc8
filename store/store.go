package store

import (
	"context"
	"errors"
	"time"

	"github.com/assay-eval/assay"
	"github.com/google/uuid"
)

// Store keeps run records. It is small so that other stores (Postgres, in
// store/postgres) can follow; store/storetest runs the same conformance
// tests against each. Callers read runs through it (Load, Cases), never
// through a store's files, so every command works on every backend.
type Store interface {
	Reader
	// Begin records a new run with status "incomplete" (the files store
	// creates runs/<run_id>/ and writes run.json) and its index row. A run
	// without a RunID gets a new one (NewRunID); Begin sets run.Schema,
	// run.Status and run.AssayVersion when they are empty.
	Begin(ctx context.Context, run *assay.Run) (RunWriter, error)
	// Trend returns the value of metric (a metric name as recorded, such
	// as ndcg@10, or pass_rate) in the complete runs of suite, oldest
	// first, at most limit of the newest (0: all). Runs without the metric
	// are left out, and so are shard runs (Run.Shard: a slice of a run).
	Trend(ctx context.Context, suite, metric string, limit int) ([]TrendPoint, error)
	// Delete removes the run runID (a full run id, not a prefix or REF)
	// with its cases and index rows. An unknown id wraps ErrNotFound.
	// Deciding which runs may go (retention) is the caller's.
	Delete(ctx context.Context, runID string) error
	// Warnings says what opening the store had to repair (data for the
	// caller to show); nil when nothing.
	Warnings() []string
	Close() error
}

// Reader is the half of a Store that lists and reads runs: what a caller
// that only reads (a comparison, a run's cases) needs.
type Reader interface {
	// List returns the indexed runs matching f, newest first.
	List(ctx context.Context, f Filter) ([]Entry, error)
	// Resolve turns a REF (see ResolveRef) into the id of the run it
	// names. A path REF is read for its run id.
	Resolve(ctx context.Context, ref string) (string, error)
	// Load resolves a REF (see ResolveRef; a path REF is read from its
	// file, with no store) and returns the run record as LoadRun does:
	// its cases without their observations, and for a run stopped before
	// Finish the cases it recorded. Errors wrap ErrNotFound or ErrAmbiguous
	// as Resolve's do.
	Load(ctx context.Context, ref string) (*assay.Run, error)
	// Cases calls fn for each recorded case trial of the run runID (the
	// lines Append wrote, in order), with its Observation when
	// withObservations (else Observation is nil and is not decoded). An
	// unknown run wraps ErrNotFound; an error from fn ends the scan and is
	// returned as it is.
	Cases(ctx context.Context, runID string, withObservations bool, fn func(assay.CaseResult) error) error
}

// RunFiler is the optional capability of a store that keeps each run as
// files (Files, store/sqlite): RunFile is the path of run.json of the run runID.
// A store without files (Postgres) does not have it; Entry.Path and
// RunWriter.Dir are empty there.
type RunFiler interface {
	RunFile(runID string) string
}

// PrefixLister is the optional capability of a store that lists the runs
// whose id starts with a prefix without reading every run: what
// ResolveEntry uses for a run id or a prefix of one, so that resolving it
// costs the same in a store of ten runs as in one of ten thousand.
// ListPrefix returns what List(ctx, Filter{}) returns, kept to the runs
// whose id starts with prefix (case-sensitive), newest first. The files
// store reads the headers of the run directories named so; store/sqlite
// asks its index.
type PrefixLister interface {
	ListPrefix(ctx context.Context, prefix string) ([]Entry, error)
}

// CaseReader is the optional capability of a store that reads the trials
// of one case of a run without reading its other cases: what a case page,
// a case diff and `assay runs show --case` read. It calls fn as Cases
// would for the lines of case id only, in the same order; a run without
// the case calls fn never. An unknown run wraps ErrNotFound. The files
// stores (Files, store/sqlite) read the members of cases.jsonl.gz that
// CaseIndexFile names; a store without it is read with Cases, filtered.
type CaseReader interface {
	CaseTrials(ctx context.Context, runID, id string, withObservations bool, fn func(assay.CaseResult) error) error
}

// SuiteCaseReader is the optional capability of a store that reads the
// cases a run kept as its suite stated them when the run asked them
// (SuiteCaseWriter): a case's query, judgments and expectations, shown
// on any machine that reaches the store with no suite file. Every store
// of this module has it; a run written before runs kept their cases keeps
// none (the caller reads the suite file the run recorded).
type SuiteCaseReader interface {
	// SuiteCase returns the case id as the run runID kept it; nil, with
	// no error, when the run keeps no such case. An unknown run wraps
	// ErrNotFound.
	SuiteCase(ctx context.Context, runID, id string) (*assay.Case, error)
	// SuiteCases calls fn with each case the run runID kept, in the
	// order the run wrote them; fn never when it keeps none. An unknown run wraps ErrNotFound; an
	// error from fn ends the pass and is returned as it is.
	SuiteCases(ctx context.Context, runID string, fn func(assay.Case) error) error
}

// HeadLoader is the optional capability of a store that reads a run's
// record without its cases (summary, gates, git, warnings) for less than
// Load costs: what a list of runs shows for each (the UI's runs page).
// An unknown run wraps ErrNotFound.
type HeadLoader interface {
	LoadHead(ctx context.Context, runID string) (*assay.Run, error)
}

// ProgressReporter is the optional capability of a store that can tell a
// run a live process is still writing (the lock Delete respects) without
// deleting it: what `assay runs prune --dry-run` shows.
type ProgressReporter interface {
	InProgress(ctx context.Context, runID string) bool
}

// Migrator is the optional capability of a store with a schema: the
// migrations opening it applied (none when it was up to date) and the
// schema version it is at (the number of its newest migration).
type Migrator interface {
	Migrations() (applied []string, version int)
}

// RunWriter records one run while it goes. Its methods are safe for
// concurrent use.
type RunWriter interface {
	// Append writes one line of cases.jsonl (the CaseResult with its
	// Observation). A killed process loses at most the cases of about the
	// last second: the files stores write their lines at most 0.2 s after
	// they are appended, whole lines in one write (synced every second),
	// Postgres commits the lines in batches at least every second. An
	// error may be an earlier line's that could not be kept.
	Append(r assay.CaseResult) error
	// Finish writes the final run.json (status as given) by an atomic
	// rename, syncs cases.jsonl and updates the index. It reads the run's
	// cases through run.EachCase, one at a time (once for run.json, again
	// for the index's case rows), so a run whose cases stream from disk is
	// never held whole. An error from the run's CaseStream is returned;
	// when it comes while run.json is written, run.json stays as Begin
	// wrote it.
	Finish(run *assay.Run) error
	// Dir is the run's directory; "" for a store without files (read the
	// run back with Store.Cases).
	Dir() string
}

// Releaser is the optional capability of a RunWriter to stop without
// finishing: the run stays as a killed process would leave it (incomplete,
// with the cases appended), and its lock is given up so Delete may remove
// it. The writer takes no more cases. Copy uses it for a run that was
// stopped in its source.
type Releaser interface {
	Release() error
}

// Flusher is the optional capability of a RunWriter that buffers the
// case lines it is given (the files stores): Flush writes those appended
// so far to the run's cases.jsonl, so that a reader of the run's
// directory before Finish (ReadResults of Dir) finds every one.
type Flusher interface {
	Flush() error
}

// CaseDocumenter is the optional capability of a RunWriter that keeps
// the cases it was given encoded as the run document lists them:
// CaseDocuments yields them (assay.Run.CaseDocuments), in the order they
// were appended. A run whose CaseStream yields exactly the appended cases
// (a harness run reading its results back) sets them before Finish, which
// then copies them into run.json rather than reading the cases back and
// encoding them again; after Finish they are read from run.json, for the
// other outputs of the same document.
type CaseDocumenter interface {
	CaseDocuments() assay.Seq[[]byte]
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
	// Labels selects the runs that carry every one of these labels
	// (Run.Labels; a run may carry more).
	Labels map[string]string
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
	// Path is the run's run.json; empty for a store without files.
	Path string `json:"path,omitempty"`
	// Shard is the shard of a shard run (Index, Count, Group; no gates),
	// nil for any other run.
	Shard *assay.Shard `json:"shard,omitempty"`
	// Labels are the run's labels (Run.Labels), nil for none.
	Labels map[string]string `json:"labels,omitempty"`
}

// Errors a store returns; test with errors.Is.
var (
	ErrNotFound  = errors.New("no such run")
	ErrAmbiguous = errors.New("ambiguous run reference")
	ErrFinished  = errors.New("run already finished")
	// ErrSchema is wrapped by the error of opening a database store whose
	// schema is not the version this assay knows (none yet, older, newer).
	ErrSchema = errors.New("store schema does not match this assay")
	// ErrInProgress is wrapped by Delete's error for a run that a live
	// process is still writing.
	ErrInProgress = errors.New("run is being written")
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

// Started fills in what Begin sets on a run that lacks it (a new run id,
// the schema, the assay version, the start time) and marks it incomplete:
// every Store's Begin calls it, so the backends agree.
func Started(run *assay.Run) {
	if run.RunID == "" {
		run.RunID = NewRunID()
	}
	if run.Schema == "" {
		run.Schema = assay.RunSchema
	}
	if run.AssayVersion == "" {
		run.AssayVersion = assay.Version
	}
	if run.StartedAt.IsZero() {
		run.StartedAt = time.Now().UTC()
	}
	run.Status = assay.StatusIncomplete
}

// Finished fills in what Finish sets on a run that lacks it (the schema,
// status complete, the finish time): every RunWriter's Finish calls it.
func Finished(run *assay.Run) {
	if run.Schema == "" {
		run.Schema = assay.RunSchema
	}
	if run.Status == "" {
		run.Status = assay.StatusComplete
	}
	if run.FinishedAt.IsZero() {
		run.FinishedAt = time.Now().UTC()
	}
}
