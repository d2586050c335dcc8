package report

import (
	"fmt"
	"io"
)

// Warnings writes warnings as the CLI shows them on stderr: one
// "assay: warning: " line each, control bytes escaped.
func Warnings(w io.Writer, warnings []string) {
	for _, s := range warnings {
		fmt.Fprintf(w, "assay: warning: %s\n", Escape(s))
	}
}
