//go:build !unix

package main

import "os"

// maxRSSMiB is 0 where the peak resident set is not known: the memory
// bound of the within command is not checked there.
func maxRSSMiB(*os.ProcessState) int { return 0 }

// vmHWMKiB is 0: the peak is not sampled here.
func vmHWMKiB(int) int { return 0 }

const peakFileEnv = "ASSAY_TEST_PEAK_FILE"

func writePeak(string) {}

func readPeak(string) int { return 0 }
