package ui

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"

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
func ServeStore(ctx context.Context, p StorePlan, addr string, l harness.ServeLimits) error {
	if !store.IsURL(p.StoreDir) {
		if _, err := os.Stat(p.StoreDir); err != nil {
			return harness.InputError(fmt.Errorf("no run store at %s: run 'assay run SUITE' first, or pass --store DIR", p.StoreDir))
		}
		// The UI creates nothing: a directory that holds no runs yet is
		// not made a store.
		if fi, err := os.Stat(filepath.Join(p.StoreDir, "runs")); err != nil || !fi.IsDir() {
			return harness.InputError(fmt.Errorf("no run store at %s: it holds no runs directory (run 'assay run SUITE --store %s' first; the UI creates nothing)", p.StoreDir, p.StoreDir))
		}
	}
	o := p.StoreOptions
	o.ForReading = true
	o.ReadOnly = true
	st, err := harness.OpenStore(p.StoreDir, o)
	if err != nil {
		return harness.InputError(err)
	}
	defer st.Close()
	report.Warnings(p.Log, st.Warnings())
	if !Loopback(addr) {
		fmt.Fprintf(p.Log, "assay: warning: --addr %s is not loopback: the UI has no authentication, anyone who reaches it reads every run\n", addr)
	}
	return Serve(ctx, addr, New(st, Options{ErrorLog: p.Log}), l, func(a net.Addr) {
		fmt.Fprintf(p.Log, "assay: ui on http://%s (store %s)\n", a, store.RedactURL(p.StoreDir))
	})
}

// WriteReport writes the static pages of the run runRef, compared with
// baseRef ("" for none), into dir (WriteStatic), opening the store only
// when a REF needs it (harness.OpenRefStore), and logs the first page
// written.
func WriteReport(ctx context.Context, p StorePlan, dir, runRef, baseRef string) error {
	st, err := harness.OpenRefStore(p.StoreDir, p.StoreOptions, runRef, baseRef)
	if err != nil {
		return harness.InputError(err)
	}
	if st != nil {
		defer st.Close()
		report.Warnings(p.Log, st.Warnings())
	}
	files, err := WriteStatic(ctx, dir, st, runRef, baseRef)
	if err != nil {
		return harness.InputError(err)
	}
	fmt.Fprintf(p.Log, "assay: wrote %s (%d pages)\n", files[0], len(files))
	return nil
}
