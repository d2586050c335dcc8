package main

import (
	"io"

	"github.com/assay-eval/assay/harness"
)

// output is a file flag and its value.
type output struct{ flag, path string }

// distinctOutputs rejects two flags naming one file, more than one -
// (stdout), and a path that is a directory (harness.DistinctOutputs).
func distinctOutputs(outs []output) error {
	hs := make([]harness.Output, len(outs))
	for i, o := range outs {
		hs[i] = harness.Output{Flag: o.flag, Path: o.path}
	}
	return harness.DistinctOutputs(hs)
}

// writeTo writes to a file, or stdout for "-", redacted.
func writeTo(env *Env, path string, fn func(io.Writer) error) error {
	return harness.WriteTo(env.Stdout, env.Secrets, path, fn)
}
