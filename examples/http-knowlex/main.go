// Command http-knowlex is a small Knowlex-style knowledge-base service for
// trying assay's HTTP target (see README.md and package kb).
//
//	http-knowlex [--addr 127.0.0.1:3001] [--token T]     # token default: $KB_TOKEN
//	http-knowlex [--token T] -- CMD ARGS...              # serve while CMD runs
package main

import (
	"os"

	"github.com/assay-eval/assay/examples/http-knowlex/kb"
)

func main() {
	os.Exit(kb.Main(os.Args[1:], os.Stdout, os.Stderr, os.Getenv, os.Environ()))
}
