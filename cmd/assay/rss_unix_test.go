//go:build unix

package main

import (
	"os"
	"runtime"
	"syscall"
)

// maxRSSMiB is the peak resident set of a finished process, in MiB.
func maxRSSMiB(ps *os.ProcessState) int {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0
	}
	if runtime.GOOS == "darwin" {
		return int(ru.Maxrss >> 20) // bytes
	}
	return int(ru.Maxrss >> 10) // KiB
}
