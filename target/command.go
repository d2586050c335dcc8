package target

import (
	"errors"

	"github.com/assay-eval/assay"
)

// placeholder: owned by the http/command work.
func newCommandShorthand(cmd string, o Options) (assay.Target, error) {
	return nil, errors.New("command target: not built yet")
}
