package target

import (
	"errors"

	"github.com/assay-eval/assay"
)

// placeholder: a TREC run file as a target (ranking only).
func newTrecRun(path string, o Options) (assay.Target, error) {
	return nil, errors.New("trec target: not built yet")
}
