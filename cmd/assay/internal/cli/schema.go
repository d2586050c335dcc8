package cli

import (
	"io"

	"github.com/assay-eval/assay/suite/schema"
)

// WriteSchema writes the JSON Schema called name (`assay schema NAME`,
// package suite/schema) to w; an unknown name is a Usage error that lists
// the known ones.
func WriteSchema(w io.Writer, name string) error {
	b, err := schema.Get(name)
	if err != nil {
		return usageError("usage: assay schema NAME", "%v", err)
	}
	_, err = w.Write(b)
	return err
}
