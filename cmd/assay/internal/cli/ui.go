package cli

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"

	"github.com/assay-eval/assay/internal/httpserve"
	"github.com/assay-eval/assay/ui"

	"github.com/assay-eval/assay/harness"
	"github.com/assay-eval/assay/report"
	"github.com/assay-eval/assay/store"
)

// StorePlan is the store and the log of `assay ui` (ServeStore) and
// `assay report --html` (WriteReport). This file is the body of those two
// commands, kept apart from the rest of the package.
type StorePlan struct {
	StoreDir     string
	StoreOptions store.OpenOptions
	// Log gets what the store had to repair, warnings, and where the UI
	// is served or the report written.
	Log io.Writer
}

// ServeStore serves the UI over the existing store p.StoreDir (a
// directory or a URL, opened read-only: a directory store is neither
// created, migrated nor repaired; shown redacted) on addr until ctx is
// done, within the limits l. An address that is not loopback is served
// with a warning: the UI has no authentication. What a page could not
// read is logged to p.Log (the page says only that it failed).
func ServeStore(ctx context.Context, p StorePlan, addr string, l httpserve.ServeLimits) error {
	if !store.IsURL(p.StoreDir) {
		if _, err := os.Stat(p.StoreDir); err != nil {
			return inputError(fmt.Errorf("no run store at %s: run 'assay run SUITE' first, or pass --store DIR", p.StoreDir))
		}
		// The UI creates nothing: a directory that holds no runs yet is
		// not made a store.
		if fi, err := os.Stat(filepath.Join(p.StoreDir, "runs")); err != nil || !fi.IsDir() {
			return inputError(fmt.Errorf("no run store at %s: it holds no runs directory (run 'assay run SUITE --store %s' first; the UI creates nothing)", p.StoreDir, p.StoreDir))
		}
	}
	o := p.StoreOptions
	o.ForReading = true
	o.ReadOnly = true
	st, err := OpenStore(p.StoreDir, o)
	if err != nil {
		return inputError(err)
	}
	defer st.Close()
	report.Warnings(p.Log, st.Warnings())
	if !ui.Loopback(addr) {
		fmt.Fprintf(p.Log, "assay: warning: --addr %s is not loopback: the UI has no authentication, anyone who reaches it reads every run\n", addr)
	}
	return ui.Serve(ctx, addr, ui.New(st, ui.Options{ErrorLog: p.Log}), l, func(a net.Addr) {
		fmt.Fprintf(p.Log, "assay: ui on http://%s (store %s)\n", a, store.RedactURL(p.StoreDir))
	})
}

// WriteReport writes the static pages of the run runRef, compared with
// baseRef ("" for none), into dir (WriteStatic), opening the store only
// when a REF needs it (OpenRefStore), and logs the first page
// written.
func WriteReport(ctx context.Context, p StorePlan, dir, runRef, baseRef string) error {
	st, err := OpenRefStore(p.StoreDir, p.StoreOptions, runRef, baseRef)
	if err != nil {
		return inputError(err)
	}
	if st != nil {
		defer st.Close()
		report.Warnings(p.Log, st.Warnings())
	}
	if baseRef != "" {
		// A latest BASE is a run of RUN's suite; another suite's is refused.
		if baseRef, runRef, err = harness.ResolvePair(ctx, st, baseRef, runRef); err != nil {
			return err
		}
	}
	files, err := ui.WriteStatic(ctx, dir, st, runRef, baseRef)
	if err != nil {
		return inputError(err)
	}
	fmt.Fprintf(p.Log, "assay: wrote %s (%d pages)\n", files[0], len(files))
	return nil
}

// WriteResult is `assay run --html DIR`: the static report (WriteStatic)
// of each run of res, read back from the store the run was recorded in (storeDir
// with so: a directory or a postgres:// URL), compared with the
// run it was compared with (baselineRef as given, when it is a path; else
// that run in the store). A matrix writes one report per variant, into
// DIR/<short run id>. It returns the index.html files written; with dir ""
// it writes nothing.
func WriteResult(ctx context.Context, dir string, storeDir string, so store.OpenOptions, res *harness.Result, baselineRef string) ([]string, error) {
	var out []string
	if dir == "" || res == nil || len(res.Runs) == 0 {
		return nil, nil
	}
	o := so
	o.ForReading = true
	st, err := OpenStore(storeDir, o)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	for i, run := range res.Runs {
		d, base := dir, ""
		if len(res.Runs) > 1 {
			d = filepath.Join(dir, report.ShortID(run.RunID))
		}
		if i < len(res.Baselines) && res.Baselines[i] != nil {
			base = res.Baselines[i].RunID
			if store.IsPathRef(baselineRef) && len(res.Runs) == 1 {
				base = baselineRef
			}
		}
		files, err := ui.WriteStatic(ctx, d, st, run.RunID, base)
		if err != nil {
			return out, err
		}
		out = append(out, files[0])
	}
	return out, nil
}
