package cli

import (
	"bytes"
	"embed"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/assay-eval/assay/internal/atomicfile"
)

// initFiles are the starter files `assay init` writes.
//
//go:embed initfiles
var initFiles embed.FS

// InitFile is one file `assay init` writes: its path relative to the
// directory and the embedded template it is a copy of.
type InitFile struct {
	Path, Template string
}

// InitFiles are the files, in the order they are written: a small suite
// with an inline corpus that passes its gates against the builtin target,
// a target file for an HTTP system, and a GitHub Actions workflow that
// runs the suite with assay's action.
var InitFiles = []InitFile{
	{Path: "suite.yaml", Template: "initfiles/suite.yaml"},
	{Path: "target.yaml", Template: "initfiles/target.yaml"},
	{Path: filepath.Join(".github", "workflows", "assay.yml"), Template: "initfiles/assay.yml"},
}

// InitPlan is `assay init [DIR]`.
type InitPlan struct {
	Dir    string // "" is the current directory
	Stdout io.Writer
}

// Init writes InitFiles into p.Dir. It asks nothing and overwrites
// nothing: when any of the files exists, nothing is written and the error
// (exit 2) names it.
func Init(p InitPlan) error {
	dir := p.Dir
	if dir == "" {
		dir = "."
	}
	for _, f := range InitFiles {
		path := filepath.Join(dir, f.Path)
		if _, err := os.Lstat(path); err == nil {
			return usageError("move it away, or run assay init in another directory", "%s exists: assay init overwrites nothing", path)
		}
	}
	for _, f := range InitFiles {
		path := filepath.Join(dir, f.Path)
		data, err := initFiles.ReadFile(f.Template)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return inputError(err)
		}
		if err := atomicfile.Replace(path, func(w io.Writer) error {
			_, err := io.Copy(w, bytes.NewReader(data))
			return err
		}); err != nil {
			return inputError(err)
		}
		fmt.Fprintf(p.Stdout, "wrote %s\n", filepath.ToSlash(path))
	}
	suite := filepath.ToSlash(filepath.Join(dir, "suite.yaml"))
	fmt.Fprintf(p.Stdout, "next: assay run %s   (then --target %s for your system)\n", suite, filepath.ToSlash(filepath.Join(dir, "target.yaml")))
	return nil
}
