//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package store

import (
	"os"
	"time"
)

const renameOpen = false

// staleAfter is the age at which an unlockable platform treats a
// temporary file as abandoned.
const staleAfter = time.Hour

func lockFile(*os.File) error { return nil }

// abandoned reports whether the file at path is older than staleAfter.
func abandoned(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && time.Since(fi.ModTime()) > staleAfter
}
