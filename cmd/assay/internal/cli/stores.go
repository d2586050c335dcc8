package cli

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/assay-eval/assay/store/postgres"

	"github.com/assay-eval/assay/store"
)

// Migrated is what MigrateStore did to a store's schema.
type Migrated struct {
	Store   string   `json:"store"`   // the store as shown (store.RedactURL)
	Applied []string `json:"applied"` // the migrations applied now
	Version int      `json:"version"` // the schema version it is at
}

// MigrateStore opens the store spec (a directory, created when missing, or
// a URL) with OpenOptions.Migrate, which applies the migrations it lacks,
// and says which it applied. It is the one command that changes a
// database store's schema (and so needs a role that may).
func MigrateStore(spec string, o store.OpenOptions) (Migrated, error) {
	o.Migrate = true
	st, err := OpenStore(spec, o)
	if err != nil {
		return Migrated{}, inputError(err)
	}
	defer st.Close()
	m := Migrated{Store: store.RedactURL(spec), Applied: []string{}}
	if mg, ok := st.(store.Migrator); ok {
		applied, v := mg.Migrations()
		m.Applied, m.Version = append(m.Applied, applied...), v
	}
	return m, nil
}

// WriteText writes what MigrateStore did, as `assay store migrate`
// prints it: each migration applied, else that the schema is up to date.
func (m Migrated) WriteText(w io.Writer) error {
	if len(m.Applied) == 0 {
		_, err := fmt.Fprintf(w, "store %s: schema up to date (version %d)\n", m.Store, m.Version)
		return err
	}
	for _, a := range m.Applied {
		if _, err := fmt.Fprintf(w, "store %s: applied %s\n", m.Store, a); err != nil {
			return err
		}
	}
	return nil
}

// WriteCopied writes what CopyStores did, as `assay store copy` prints
// it (the stores' URLs redacted).
func WriteCopied(w io.Writer, from, to string, res store.CopyResult) error {
	var more string
	if n := len(res.Redone); n > 0 {
		more += fmt.Sprintf(", %d copied again: the copy there was not whole", n)
	}
	if n := len(res.InProgress); n > 0 {
		more += fmt.Sprintf(", %d still being written: copy again once they finish", n)
	}
	_, err := fmt.Fprintf(w, "copied %d runs from %s to %s (%d already there%s)\n", len(res.Copied), store.RedactURL(from), store.RedactURL(to), len(res.Skipped), more)
	return err
}

// CopyStores copies the runs of the store from into the store to (either a
// directory or a URL; to is created when it is a missing directory), as
// store.Copy does: each copy verified, runs to already has whole skipped,
// runs it has only part of copied again.
func CopyStores(ctx context.Context, from, to string, o store.OpenOptions) (store.CopyResult, error) {
	if !store.IsURL(from) {
		if _, err := os.Stat(from); err != nil {
			return store.CopyResult{}, inputError(fmt.Errorf("no run store at %s", from))
		}
	}
	ro := o
	ro.ForReading = true
	src, err := OpenStore(from, ro)
	if err != nil {
		return store.CopyResult{}, inputError(err)
	}
	defer src.Close()
	dst, err := OpenStore(to, o)
	if err != nil {
		return store.CopyResult{}, inputError(err)
	}
	defer dst.Close()
	res, err := store.Copy(ctx, dst, src)
	if err != nil {
		return res, inputError(fmt.Errorf("copy %s to %s: %w (copied %d runs before it)", store.RedactURL(from), store.RedactURL(to), err, len(res.Copied)))
	}
	return res, nil
}

// DefaultStoreDir is the run store when none is chosen.
const DefaultStoreDir = ".assay"

// StoreRoot is the run store of a --store value: flag, else $ASSAY_STORE
// (read through getenv), else DefaultStoreDir; explicit reports whether it
// was chosen (a missing chosen store is an error, a missing default one
// just has no runs yet).
func StoreRoot(flag string, getenv func(string) string) (dir string, explicit bool) {
	if flag != "" {
		return flag, true
	}
	if d := getenv("ASSAY_STORE"); d != "" {
		return d, true
	}
	return DefaultStoreDir, false
}

// OpenStore opens the run store spec (store.Open) with every backend of
// the module: a directory, or a postgres:// URL (store/postgres).
func OpenStore(spec string, o store.OpenOptions) (store.Store, error) {
	if o.Backends == nil {
		o.Backends = Backends
	}
	return store.Open(spec, o)
}

// Backends are the store backends OpenStore knows, by URL scheme: the one
// explicit list (no registration).
var Backends = map[string]store.Opener{
	"postgres":   postgres.Open,
	"postgresql": postgres.Open,
}

// OpenRefStore opens the run store at dir for reading when one of refs
// needs it (store.NeedsIndex: anything but a path); paths work with no
// store at all, and the store is then nil. A missing store is an error
// that says how to make one.
func OpenRefStore(dir string, o store.OpenOptions, refs ...string) (store.Store, error) {
	if !store.NeedsIndex(refs...) {
		return nil, nil
	}
	if !store.IsURL(dir) {
		if _, err := os.Stat(dir); err != nil {
			return nil, fmt.Errorf("no run store at %s: run 'assay run SUITE' first, give a run.json path, or pass --store DIR", dir)
		}
	}
	o.ForReading = true
	return OpenStore(dir, o) // its errors name the store
}
