package main

import (
	"io"

	"github.com/assay-eval/assay/cmd/assay/internal/cli"
)

// writeTo writes to a file, or stdout for "-", redacted.
func writeTo(env *Env, path string, fn func(io.Writer) error) error {
	return cli.WriteTo(env.Stdout, env.Secrets, path, fn)
}
