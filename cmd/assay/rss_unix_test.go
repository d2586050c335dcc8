//go:build unix

package main

import (
	"os"
	"runtime"
	"strconv"
	"strings"
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

// vmHWMKiB is the peak resident set of the running process pid, in KiB,
// from /proc/PID/status (Linux); 0 where it cannot be read (another
// system, or the process has ended).
func vmHWMKiB(pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kib, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")))
			return kib
		}
	}
	return 0
}

// peakFileEnv names the file where the assay command of the test binary
// writes its own peak resident set (KiB) as it exits.
const peakFileEnv = "ASSAY_TEST_PEAK_FILE"

// writePeak writes the process's peak resident set (VmHWM, KiB) to path;
// nothing when path is "" or the peak is not known.
func writePeak(path string) {
	if path == "" {
		return
	}
	if kib := vmHWMKiB(os.Getpid()); kib > 0 {
		os.WriteFile(path, []byte(strconv.Itoa(kib)), 0o600)
	}
}

// readPeak is what writePeak wrote to path; 0 when nothing was.
func readPeak(path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	kib, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return kib
}
