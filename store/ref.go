package store

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/assay-eval/assay"
)

// Lister is the part of a Store that ResolveRef needs.
type Lister interface {
	List(ctx context.Context, f Filter) ([]Entry, error)
}

// IsPathRef reports whether ref names a file or directory that exists (or
// looks like a path: it ends in .json or contains a path separator), so it
// can be loaded with no store at all.
func IsPathRef(ref string) bool {
	if _, err := os.Stat(ref); err == nil {
		return true
	}
	return strings.HasSuffix(ref, ".json") || strings.ContainsRune(ref, '/') || strings.ContainsRune(ref, filepath.Separator)
}

// ResolvePath turns a path REF (a run.json or its directory) into the
// run.json path, checking that it exists.
func ResolvePath(ref string) (string, error) {
	file := runFile(ref)
	fi, err := os.Stat(file)
	if err != nil {
		return "", fileErr(file, err)
	}
	if fi.IsDir() {
		return "", fmt.Errorf("%s: is a directory without a %s", file, RunFile)
	}
	return file, nil
}

// ResolveRef turns a REF into the path of a run.json. A REF is, in order:
//
//   - a path to a run.json or to its directory (anything that exists, ends
//     in .json or contains a path separator);
//   - "latest": the newest complete run (an incomplete run, or a shard
//     run, a slice of a run, is never chosen), "latest@BRANCH" and
//     "latest{K=V,...}" the newest one with those labels, each with an
//     optional "~N" (see ResolveEntryIn: here no suite is at hand, so
//     latest is the newest run of any suite);
//   - a run id or a unique prefix of one (case-insensitive).
//
// A nil l (no store) resolves paths only. Errors wrap ErrNotFound or
// ErrAmbiguous. This is the one resolver: every command and every
// Store's Resolve and Load go through it (or ResolveEntry, its part for the
// REFs that are not paths). A run of a store without files has no path:
// Store.Load reads it.
func ResolveRef(ctx context.Context, l Lister, ref string) (string, error) {
	if l == nil {
		return ResolvePath(ref)
	}
	if t := strings.TrimSpace(ref); IsPathRef(t) {
		return ResolvePath(t)
	}
	e, err := ResolveEntry(ctx, l, ref)
	if err != nil {
		return "", err
	}
	if e.Path == "" {
		return "", fmt.Errorf("run %s is kept in a store without files (a database): it has no run.json path", e.RunID)
	}
	return e.Path, nil
}

// ResolveID turns a REF into a run id: a path REF is read for the run_id
// of its run.json; any other REF is resolved in l (ResolveEntry).
func ResolveID(ctx context.Context, l Lister, ref string) (string, error) {
	if t := strings.TrimSpace(ref); l == nil || IsPathRef(t) {
		path, err := ResolvePath(t)
		if err != nil {
			return "", err
		}
		h, err := PeekRun(path)
		if err != nil {
			return "", err
		}
		return h.RunID, nil
	}
	e, err := ResolveEntry(ctx, l, ref)
	return e.RunID, err
}

// ResolveEntry resolves a REF that names a run in the index (latest,
// latest~N, latest@BRANCH, latest{K=V,...}, a run id or a unique prefix;
// see ResolveRef) to its entry, with no suite at hand: latest is the
// newest complete run of any suite (ResolveEntryIn). A path is not
// resolved here: it is not in any index (ResolveRef, ResolvePath).
func ResolveEntry(ctx context.Context, l Lister, ref string) (Entry, error) {
	return ResolveEntryIn(ctx, l, ref, "")
}

// ResolveEntryIn is ResolveEntry for a caller with a suite at hand (the
// suite a run is made of, the candidate a baseline is compared with):
// the latest REFs name runs of suite (its name) only, so that in a store
// shared by several suites the baseline is never another suite's run.
//
//   - latest: the newest complete run of suite (an incomplete run, and a
//     shard run, a slice of a run, is never chosen);
//   - latest@BRANCH: the newest such run labelled branch=BRANCH;
//   - latest{K=V,...}: the newest such run carrying every label given
//     (a value may be a double-quoted Go string);
//   - each with ~N: the Nth such run before it (latest~0 is latest).
//
// With suite "" the latest REFs take the newest matching run of any suite,
// and ~N counts the runs of that run's suite.
func ResolveEntryIn(ctx context.Context, l Lister, ref, suite string) (Entry, error) {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return Entry{}, fmt.Errorf("empty run reference: %w", ErrNotFound)
	}
	lr, ok, err := parseLatest(ref)
	if err != nil {
		return Entry{}, err
	}
	if ok {
		return resolveLatest(ctx, l, ref, lr, suite)
	}
	want := strings.ToLower(ref)
	var all []Entry
	if pl, ok := l.(PrefixLister); ok {
		all, err = pl.ListPrefix(ctx, want)
	} else {
		all, err = l.List(ctx, Filter{})
	}
	if err != nil {
		return Entry{}, err
	}
	var match []Entry
	for _, e := range all {
		if e.RunID == want {
			return e, nil
		}
		if strings.HasPrefix(e.RunID, want) {
			match = append(match, e)
		}
	}
	switch len(match) {
	case 0:
		return Entry{}, fmt.Errorf("run %q: no run id starts with it (see assay runs): %w", ref, ErrNotFound)
	case 1:
		return match[0], nil
	}
	ids := make([]string, 0, 4)
	for i, e := range match {
		if i == 3 {
			ids = append(ids, "...")
			break
		}
		ids = append(ids, e.RunID)
	}
	return Entry{}, fmt.Errorf("run %q matches %d runs (%s); give more of the id: %w",
		ref, len(match), strings.Join(ids, ", "), ErrAmbiguous)
}

// ShortIDs returns, for each entry, the shortest prefix of its run id that
// is at least minLen characters long and unique among entries.
func ShortIDs(entries []Entry, minLen int) map[string]string {
	ids := make([]string, len(entries))
	for i, e := range entries {
		ids[i] = e.RunID
	}
	sort.Strings(ids)
	out := make(map[string]string, len(ids))
	for i, id := range ids {
		n := minLen
		if i > 0 && ids[i-1] != id {
			n = max(n, commonPrefix(id, ids[i-1])+1)
		}
		if i+1 < len(ids) && ids[i+1] != id {
			n = max(n, commonPrefix(id, ids[i+1])+1)
		}
		out[id] = id[:min(n, len(id))]
	}
	return out
}

func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// NeedsIndex reports whether any of refs must be resolved through a
// store's index: anything but a path (IsPathRef). Empty refs are skipped.
func NeedsIndex(refs ...string) bool {
	for _, r := range refs {
		if r != "" && !IsPathRef(r) {
			return true
		}
	}
	return false
}

// resolveLatest resolves a parsed latest REF (ResolveEntryIn).
func resolveLatest(ctx context.Context, l Lister, ref string, lr latestRef, suite string) (Entry, error) {
	f := Filter{Status: assay.StatusComplete, NoShards: true, Suite: suite, Labels: lr.labels, Limit: lr.back + 1}
	if suite == "" && lr.back > 0 {
		// ~N counts the runs of the suite of the newest one.
		newest, err := l.List(ctx, Filter{Status: assay.StatusComplete, NoShards: true, Labels: lr.labels, Limit: 1})
		if err != nil {
			return Entry{}, err
		}
		if len(newest) == 0 {
			return Entry{}, fmt.Errorf("%s: no complete run%s in the store (latest never names an incomplete run): %w", ref, withLabels(lr.labels), ErrNotFound)
		}
		f.Suite = newest[0].Suite
	}
	runs, err := l.List(ctx, f)
	if err != nil {
		return Entry{}, err
	}
	of := ""
	if f.Suite != "" {
		of = fmt.Sprintf(" of suite %q", f.Suite)
	}
	switch {
	case len(runs) == 0:
		return Entry{}, fmt.Errorf("%s: no complete run%s%s in the store (latest never names an incomplete run): %w", ref, of, withLabels(lr.labels), ErrNotFound)
	case lr.back >= len(runs):
		return Entry{}, fmt.Errorf("%s: the store holds %d complete run(s)%s%s; %s needs %d: %w",
			ref, len(runs), of, withLabels(lr.labels), ref, lr.back+1, ErrNotFound)
	}
	return runs[lr.back], nil
}

// withLabels is " labelled k=v,..." for an error, "" without labels.
func withLabels(labels map[string]string) string {
	if len(labels) == 0 {
		return ""
	}
	return " labelled " + labelsText(labels)
}
