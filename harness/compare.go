package harness

import (
	"context"
	"maps"

	"slices"
	"sync"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/compare"
	"github.com/assay-eval/assay/internal/atomicfile"
	"github.com/assay-eval/assay/store"
)

// CompareOptions tune CompareRefs.
type CompareOptions struct {
	// Margins and Multiplicity are compare.Options'.
	Margins      map[string]float64
	Multiplicity compare.Multiplicity
	// History is how many earlier runs of the baseline's suite and target
	// the store gives the comparison (History; 0: DefaultHistory, -1:
	// none).
	History int
	// OtherSuites compares runs of two suites (the report warns that
	// the suites differ) instead of refusing them with otherSuite: what
	// a browser of a store (the UI's compare page) does with any two runs
	// it is asked for. A command that takes a baseline leaves it false.
	OtherSuites bool
	// Outputs are the files the caller will write, by the name of what
	// it writes ("JSON"): one that is a run record is refused (a
	// PlanError of that Field) before anything is read.
	Outputs map[string]string
}

// CompareRefs resolves two run REFs (st may be nil when both are paths),
// checks that no output would overwrite either run record, loads the two
// runs at once (for 10,000-case runs decoding is a good part of the time)
// and compares them; the earlier runs of the baseline's system in st
// (History) weigh the flips.
func CompareRefs(ctx context.Context, st store.Reader, baseRef, candRef string, co CompareOptions) (compare.Report, error) {
	// A REF is resolved first (to a path, or to a stored run's id and
	// run.json when the store keeps files), so that no output overwrites a
	// run record before anything is read.
	paths, ids, err := resolvePair(ctx, st, baseRef, candRef, co.OtherSuites)
	if err != nil {
		return compare.Report{}, err
	}
	for _, name := range slices.Sorted(maps.Keys(co.Outputs)) {
		out := co.Outputs[name]
		for _, p := range paths {
			if p != "" && out != "" && out != "-" && atomicfile.SameFile(out, p) {
				return compare.Report{}, planError(name, "write it to another file", "{"+name+"} %s would overwrite the run record %s", out, p)
			}
		}
	}
	var runs [2]*compare.Compact
	var errs [2]error
	var wg sync.WaitGroup
	for i := range paths {
		wg.Go(func() {
			if paths[i] != "" {
				runs[i], errs[i] = loadCompact(paths[i])
				return
			}
			run, err := st.Load(ctx, ids[i])
			if err == nil {
				runs[i] = compare.CompactOf(run)
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return compare.Report{}, inputError(err)
		}
	}
	b, c := runs[0].Head, runs[1].Head
	if b.Suite.Name != c.Suite.Name && !co.OtherSuites {
		return compare.Report{}, otherSuite(baseRef, b.RunID, b.Suite.Name, c.Suite.Name)
	}
	hist := History(ctx, st, b, c, co.History)
	return compare.RunsCompact(runs[0], runs[1], compare.Options{Margins: co.Margins, Multiplicity: co.Multiplicity, History: hist}), nil
}

// loadCompact reads the run record at path (a run.json or its directory)
// into the compact form a comparison reads, one case at a time
// (store.StreamRunFacts: only the fields a comparison reads are decoded):
// the run's full results are never held, so comparing two 100,000-case
// runs takes about the memory of their ids and measures. Errors are
// store.LoadRun's; a record whose only fault is a wrongly typed field no
// comparison reads is read.
func loadCompact(path string) (*compare.Compact, error) {
	c := &compare.Compact{}
	head, err := store.StreamRunFacts(path, c.Add, func() { *c = compare.Compact{} })
	if err != nil {
		return nil, err
	}
	c.Head = head
	return c, nil
}

// ResolvePair resolves the REFs of a baseline and a candidate run as a
// comparison does (CompareRefs) and returns, for each, its run.json path
// when it is a path REF, else its run id: a latest REF names a run of
// the other's suite, and runs of two suites are refused (otherSuite).
func ResolvePair(ctx context.Context, st store.Reader, baseRef, candRef string) (base, cand string, err error) {
	paths, ids, err := resolvePair(ctx, st, baseRef, candRef, false)
	if err != nil {
		return "", "", err
	}
	var heads [2]*assay.Run
	for i, ref := range []string{baseRef, candRef} {
		if st != nil && !store.IsPathRef(ref) {
			continue
		}
		// A run file read whole: its head alone may be a truncated file's.
		if heads[i], err = store.LoadRun(paths[i]); err != nil {
			return "", "", inputError(err)
		}
		ids[i] = paths[i]
	}
	if heads[0] != nil && heads[1] != nil && heads[0].Suite.Name != heads[1].Suite.Name {
		return "", "", otherSuite(baseRef, heads[0].RunID, heads[0].Suite.Name, heads[1].Suite.Name)
	}
	return ids[0], ids[1], nil
}

// resolvePair resolves base and candidate REFs to run.json paths (""
// for a run of a store without files) and run ids ("" for a path REF). A
// latest REF names a run of the other's suite: the candidate is resolved
// first (with no suite at hand, latest is the newest run of any suite),
// unless it is the only latest REF of the two.
func resolvePair(ctx context.Context, st store.Reader, baseRef, candRef string, otherSuites bool) (paths, ids [2]string, err error) {
	var suites, runIDs [2]string
	refs := [2]string{baseRef, candRef}
	order := []int{1, 0}
	if store.IsLatestRef(candRef) && !store.IsLatestRef(baseRef) {
		order = []int{0, 1}
	}
	suite := ""
	for _, i := range order {
		ref := refs[i]
		if st == nil || store.IsPathRef(ref) {
			p, err := store.ResolveRef(ctx, nil, ref)
			if err != nil {
				return paths, ids, inputError(err)
			}
			paths[i] = p
			// The suite of a path REF scopes the other's latest; a file
			// that does not read is reported when it is loaded.
			if h, err := store.PeekRun(p); err == nil {
				suites[i], runIDs[i] = store.IndexText(h.Suite.Name), h.RunID
			}
		} else {
			e, err := store.ResolveEntryIn(ctx, st, ref, suite)
			if err != nil {
				return paths, ids, inputError(err)
			}
			ids[i], paths[i], suites[i], runIDs[i] = e.RunID, runFile(st, e.RunID), e.Suite, e.RunID
		}
		suite = suites[i]
	}
	if ids[0] != "" && ids[1] != "" && suites[0] != suites[1] && !otherSuites {
		// Both from the index: refused before anything is read.
		return paths, ids, otherSuite(baseRef, runIDs[0], suites[0], suites[1])
	}
	return paths, ids, nil
}
