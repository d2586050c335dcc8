package target

import (
	"errors"

	"github.com/assay-eval/assay"
)

// placeholder: owned by the engine work.
func newBuiltin(spec string, o Options) (assay.Target, error) {
	return nil, errors.New("builtin target: not built yet")
}
