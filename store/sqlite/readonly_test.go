package sqlite

import (
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/store"
)

// makeReadOnly makes the store at root unwritable for this process until
// the test ends: chmod a-w, or, for root (whom modes do not stop), the
// immutable attribute (chattr +i); it skips the test when neither works.
func makeReadOnly(t *testing.T, root string) {
	t.Helper()
	var paths []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil {
			paths = append(paths, p)
		}
		return nil
	})
	if os.Geteuid() != 0 {
		for _, p := range paths {
			fi, _ := os.Stat(p)
			os.Chmod(p, fi.Mode().Perm()&^0o222)
		}
		t.Cleanup(func() {
			for _, p := range paths {
				fi, _ := os.Stat(p)
				os.Chmod(p, fi.Mode().Perm()|0o200)
			}
		})
		return
	}
	if out, err := exec.Command("chattr", "-R", "+i", root).CombinedOutput(); err != nil {
		t.Skipf("running as root, and chattr +i does not work here: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("chattr", "-R", "-i", root).Run() })
	if f, err := os.Create(filepath.Join(root, "probe")); err == nil {
		f.Close()
		t.Skip("chattr +i did not make the store read-only")
	}
}

// storeWithRuns makes a store of two complete runs and returns their ids.
func storeWithRuns(t *testing.T, root string) []string {
	t.Helper()
	s, err := OpenStore(root, store.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var ids []string
	for i := 0; i < 2; i++ {
		run := &assay.Run{Suite: assay.SuiteRef{Name: "kb"}}
		w, err := s.Begin(context.Background(), run)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Append(assay.CaseResult{ID: "q1"}); err != nil {
			t.Fatal(err)
		}
		run.Status = assay.StatusComplete
		run.Cases = []assay.CaseResult{{ID: "q1"}}
		if err := w.Finish(run); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, run.RunID)
	}
	return ids
}

func listing(t *testing.T, root string) string {
	var names []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil {
			names = append(names, p)
		}
		return nil
	})
	sort.Strings(names)
	return strings.Join(names, "\n")
}

// The read commands work on a store this user cannot write: the index is
// opened read-only (or, without a usable one, rebuilt in memory), nothing
// is migrated or written, and writing a run says the store is read-only.
func TestOpenForReadingReadOnlyStore(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		prep  func(root string)
		index bool
	}{
		{"with its index", func(string) {}, true},
		{"without an index", func(root string) { os.Remove(filepath.Join(root, DBFile)) }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "st")
			ids := storeWithRuns(t, root)
			tc.prep(root)
			makeReadOnly(t, root)
			before := listing(t, root)

			if _, err := OpenStore(root, store.OpenOptions{}); err == nil || !strings.Contains(err.Error(), "cannot be written by this user") {
				t.Errorf("Open on a read-only store: %v, want it said plainly", err)
			}
			s, err := OpenStore(root, store.OpenOptions{ForReading: true})
			if err != nil {
				t.Fatalf("OpenForReading: %v", err)
			}
			defer s.Close()
			if !s.ReadOnly() {
				t.Error("ReadOnly() = false")
			}
			ents, err := s.List(context.Background(), store.Filter{})
			if err != nil {
				t.Fatal(err)
			}
			if len(ents) != 2 || ents[0].RunID != ids[1] || ents[1].RunID != ids[0] {
				t.Errorf("List: %+v, want runs %v newest first", ents, ids)
			}
			if p, err := s.Resolve(context.Background(), "latest"); err != nil || !strings.Contains(p, ids[1]) {
				t.Errorf("Resolve(latest) = %q, %v", p, err)
			}
			if _, err := s.Begin(context.Background(), &assay.Run{}); err == nil || !strings.Contains(err.Error(), "read-only") {
				t.Errorf("Begin on a read-only store: %v", err)
			}
			if after := listing(t, root); after != before {
				t.Errorf("the read-only store changed:\nbefore\n%s\nafter\n%s", before, after)
			}
		})
	}
}
