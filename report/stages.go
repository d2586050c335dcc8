package report

import (
	"slices"
	"strings"

	"github.com/assay-eval/assay"
)

// stageOrder is the order of the built-in baseline's stages (a retrieval
// pipeline's order); StageNames lists these first.
var stageOrder = []string{"analyze", "retrieve", "bm25", "embed", "vector", "fuse", "rerank", "answer"}

// StageNames returns the names of a summary's stages in pipeline order:
// the built-in baseline's stages in the order they run, then any other
// name alphabetically.
func StageNames(stages map[string]assay.Latency) []string {
	names := make([]string, 0, len(stages))
	for name := range stages {
		names = append(names, name)
	}
	rank := func(name string) int {
		if i := slices.Index(stageOrder, name); i >= 0 {
			return i
		}
		return len(stageOrder)
	}
	slices.SortFunc(names, func(a, b string) int {
		if ra, rb := rank(a), rank(b); ra != rb {
			return ra - rb
		}
		return strings.Compare(a, b)
	})
	return names
}
