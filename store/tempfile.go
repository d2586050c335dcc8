package store

import (
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/assay-eval/assay/internal/atomicfile"
)

// The store writes run.json and cases.jsonl.gz through temporary files
// beside them (".run.json.*.tmp", ".cases.jsonl.gz.*.tmp"), renamed into
// place once complete. A process killed between the two leaves its
// temporary file behind; sweepTemp removes those. A writer holds an
// exclusive lock (flock) on its temporary file until it is renamed, and
// the lock goes with the process, so a file that can be locked belongs to
// no live writer. Where there is no flock, a temporary file is left alone
// until it is atomicfile.StaleAfter old.

// The writing, locking and committing is atomicfile's (Create with
// Options{Sync: true, Locked: true}); the store keeps only the sweep.

// isStoreTemp reports whether name is one of the store's temporary files.
func isStoreTemp(name string) bool {
	return atomicfile.IsTemp(name, RunFile, CasesGzFile, CaseIndexFile, SuiteCasesGzFile, SuiteCaseIndexFile)
}

// SweepTemp removes the temporary files in a run directory that no live
// writer holds (best effort; it reports how many it removed).
func SweepTemp(dir string) int {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range ents {
		if !e.Type().IsRegular() {
			continue
		}
		path := filepath.Join(dir, e.Name())
		if base, ok := strings.CutSuffix(e.Name(), ".new"); ok && isStoreTemp(base) {
			// Killed between its creation and its lock: left alone until it
			// is a minute old, so a writer that has not locked it yet keeps it.
			if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > time.Minute && atomicfile.Abandoned(path) && os.Remove(path) == nil {
				n++
			}
			continue
		}
		if !isStoreTemp(e.Name()) {
			continue
		}
		if atomicfile.Abandoned(path) && os.Remove(path) == nil {
			n++
		}
	}
	return n
}
