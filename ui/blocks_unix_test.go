//go:build unix

package ui

import (
	"io/fs"
	"syscall"
)

// blocksOf is the bytes of the blocks the file fi holds on disk (what du
// counts), or its size where the system does not say.
func blocksOf(fi fs.FileInfo) int64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Blocks * 512
	}
	return fi.Size()
}
