package main

import (
	"runtime/debug"

	"github.com/assay-eval/assay"
	"golang.org/x/term"
)

func version() string {
	v := assay.Version
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		v = bi.Main.Version
	}
	return v
}

func termIsTerminal(fd int) bool { return term.IsTerminal(fd) }
