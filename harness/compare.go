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
	var paths, ids [2]string
	for i, ref := range []string{baseRef, candRef} {
		if st == nil || store.IsPathRef(ref) {
			p, err := store.ResolveRef(ctx, nil, ref)
			if err != nil {
				return compare.Report{}, inputError(err)
			}
			paths[i] = p
			continue
		}
		id, err := st.Resolve(ctx, ref)
		if err != nil {
			return compare.Report{}, inputError(err)
		}
		ids[i], paths[i] = id, runFile(st, id)
	}
	for _, name := range slices.Sorted(maps.Keys(co.Outputs)) {
		out := co.Outputs[name]
		for _, p := range paths {
			if p != "" && out != "" && out != "-" && atomicfile.SameFile(out, p) {
				return compare.Report{}, planError(name, "write it to another file", "{"+name+"} %s would overwrite the run record %s", out, p)
			}
		}
	}
	var runs [2]*assay.Run
	var errs [2]error
	var wg sync.WaitGroup
	for i := range paths {
		wg.Go(func() {
			if paths[i] != "" {
				runs[i], errs[i] = store.LoadRun(paths[i])
			} else {
				runs[i], errs[i] = st.Load(ctx, ids[i])
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return compare.Report{}, inputError(err)
		}
	}
	hist := History(ctx, st, runs[0], runs[1], co.History)
	return compare.Runs(runs[0], runs[1], compare.Options{Margins: co.Margins, Multiplicity: co.Multiplicity, History: hist}), nil
}
