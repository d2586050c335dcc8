package store

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/internal/boundedfile"
	"github.com/assay-eval/assay/redact"
)

// OpenOptions adjust Open.
type OpenOptions struct {
	// Waiting, when set, is called once when the store has waited about a
	// second (WaitNotice) for another process's lock on the index: a CLI
	// says it is waiting rather than hang without a word.
	Waiting func()
	// ForReading opens the store for the commands that only read it (runs,
	// compare, gate): read-only when it cannot be written (see
	// store/sqlite). A store opened so may refuse Begin.
	ForReading bool
	// ReadOnly opens a directory store for reading only even when it
	// could be written (assay ui): nothing is created, migrated or
	// repaired, as a store it cannot write is opened. A directory without
	// a runs directory is refused.
	ReadOnly bool
	// Getenv expands ${VAR} in a store URL (a password kept out of the
	// command line); nil expands nothing. Library code reads no
	// environment: the CLI passes its own.
	Getenv func(string) string
	// Migrate lets opening the store change its schema: create its tables
	// and apply the migrations it lacks (`assay store migrate`). Without
	// it a database store (Postgres) only checks that its schema is the
	// version this assay knows and says what to run when it is not, so
	// that every other command works with a role that may not create
	// tables. The files store's SQLite index is private to the store
	// directory and is always brought up to date.
	Migrate bool
	// Backends open the stores named by URL, by scheme ("postgres"):
	// package store itself opens directories only (a backend package such
	// as store/postgres imports this one). harness.OpenStore fills in every
	// backend of the module.
	Backends map[string]Opener
	// Directory opens a store named by a directory: the CLI's is
	// store/sqlite's Open (the run files with an SQLite index). Nil opens
	// the run files alone (OpenFiles), which needs no database: listing
	// reads each run's header.
	Directory Opener
}

// Opener opens the store named by a URL of its scheme.
type Opener func(url string, o OpenOptions) (Store, error)

// WaitNotice is how long a busy wait on the index lasts before
// OpenOptions.Waiting is called.
const WaitNotice = time.Second

// Open opens the run store spec, the one way a caller gets a Store:
// callers hold the interface, so a backend plugs in here without touching
// them. A spec of the form SCHEME://... (IsURL) is opened by
// o.Backends[SCHEME] (postgres://USER@HOST:PORT/DB: store/postgres); any
// other spec is a directory, opened by o.Directory (store/sqlite: the
// files and an SQLite index), or as the files alone (OpenFiles) when it
// is nil.
func Open(spec string, o OpenOptions) (Store, error) {
	if scheme, ok := urlScheme(spec); ok {
		op := o.Backends[scheme]
		if op == nil {
			known := slices.Sorted(maps.Keys(o.Backends))
			if len(known) == 0 {
				return nil, fmt.Errorf("store %s: no backend opens %s:// stores here (give a directory)", RedactURL(spec), scheme)
			}
			return nil, fmt.Errorf("store %s: unknown store scheme %q (known: %s, or a directory)", RedactURL(spec), scheme, strings.Join(known, ", "))
		}
		return op(spec, o)
	}
	if o.Directory != nil {
		return o.Directory(spec, o)
	}
	s, err := OpenFiles(spec, o)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// IsURL reports whether spec names a store by URL (SCHEME://...) rather
// than by directory.
func IsURL(spec string) bool {
	_, ok := urlScheme(spec)
	return ok
}

func urlScheme(spec string) (string, bool) {
	scheme, _, ok := strings.Cut(spec, "://")
	if !ok || len(scheme) < 2 {
		return "", false
	}
	for i, r := range scheme {
		letter := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
		if !letter && (i == 0 || !(r >= '0' && r <= '9' || r == '+' || r == '-' || r == '.')) {
			return "", false
		}
	}
	return strings.ToLower(scheme), true
}

// RedactURL is a store spec as it may be shown: a URL with its password
// (and credential-like query values) replaced (redact.URL); a directory
// as it is. A URL that does not parse is shown as its scheme only.
func RedactURL(spec string) string {
	scheme, ok := urlScheme(spec)
	if !ok {
		return spec
	}
	// ${VAR} (expanded by the backend) is not valid in every part of a
	// URL: its braces are escaped for parsing and shown as written.
	braces := strings.NewReplacer("${", "$%7B", "}", "%7D")
	u, err := url.Parse(braces.Replace(spec))
	if err != nil {
		return scheme + "://" + redact.Redacted
	}
	return strings.NewReplacer("$%7B", "${", "%7D", "}").Replace(redact.URL(u))
}

// Headline picks the metric shown in listings (Entry.Headline): the first of the run's
// metric set (options, else the default set) that has a value.
func Headline(run *assay.Run) (string, *float64) {
	names := run.Options.Metrics
	if len(names) == 0 {
		names = assay.DefaultMetrics
	}
	for _, n := range names {
		if m, ok := run.Summary.Metrics[n]; ok && m.N > 0 {
			v := m.Mean
			return n, &v
		}
	}
	keys := make([]string, 0, len(run.Summary.Metrics))
	for k, m := range run.Summary.Metrics {
		if m.N > 0 {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return "", nil
	}
	sort.Strings(keys)
	v := run.Summary.Metrics[keys[0]].Mean
	return keys[0], &v
}

// ValidRunID reports whether id can name a run directory.
func ValidRunID(id string) bool {
	return id != "" && id != "." && id != ".." && !strings.ContainsAny(id, `/\`)
}

// PeekStatus reads only the status of a run.json ("" when unreadable).
func PeekStatus(file string) assay.RunStatus {
	b, err := boundedfile.ReadFile(file, boundedfile.RunRecord)
	if err != nil {
		return ""
	}
	var head struct {
		Status assay.RunStatus `json:"status"`
	}
	if json.Unmarshal(b, &head) != nil {
		return ""
	}
	return head.Status
}

// deletingPrefix names a run directory that Delete is removing.
const deletingPrefix = ".deleting-"
