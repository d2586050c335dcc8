package target

import (
	"errors"

	"github.com/assay-eval/assay"
)

// placeholder: owned by the http/command work.
func newHTTPShorthand(url string, o Options) (assay.Target, error) {
	return nil, errors.New("http target: not built yet")
}

// placeholder: owned by the http/command work.
func openFile(path string, o Options) (assay.Target, error) {
	return nil, errors.New("target files: not built yet")
}
