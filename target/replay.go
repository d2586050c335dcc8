package target

import (
	"errors"

	"github.com/assay-eval/assay"
)

// OpenReplay placeholder.
func OpenReplay(path string) (assay.Target, error) { return nil, errors.New("replay: not built yet") }
