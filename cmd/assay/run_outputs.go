package main

import (
	"io"

	"github.com/assay-eval/assay/harness"
)

// writeTo writes to a file, or stdout for "-", redacted.
func writeTo(env *Env, path string, fn func(io.Writer) error) error {
	return harness.WriteTo(env.Stdout, env.Secrets, path, fn)
}
