//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package atomicfile

import (
	"os"
	"time"
)

const renameOpen = false

func lockFile(*os.File) error { return nil }

// abandoned reports whether the file at path is older than staleAfter.
func abandoned(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && time.Since(fi.ModTime()) > StaleAfter
}
