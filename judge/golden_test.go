package judge

import (
	"testing"

	goldenfile "github.com/assay-eval/assay/internal/golden"
)

// golden compares got with testdata/name (go test -update rewrites it).
func golden(t *testing.T, name, got string) { t.Helper(); goldenfile.Check(t, name, []byte(got)) }
